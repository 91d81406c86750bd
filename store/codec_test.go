package store

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
)

// The dictionary is part of the file format: records deflated with it
// cannot be read with another.
func TestExecDictFrozen(t *testing.T) {
	sum := sha256.Sum256([]byte(execDict))
	if got := hex.EncodeToString(sum[:]); got != execDictSHA256 {
		t.Fatalf("execDict changed (sha256 %s): stored records would no longer inflate; add a new dictionary with a new first byte instead", got)
	}
}

const execDictSHA256 = "bb27f4973abacd829157298201eb465d4f7e8691eba471cb3a5febd9dd006478"

func TestExecDict2Frozen(t *testing.T) {
	sum := sha256.Sum256([]byte(execDict2))
	if got := hex.EncodeToString(sum[:]); got != execDict2SHA256 {
		t.Fatalf("execDict2 changed (sha256 %s): stored records would no longer inflate; add a new dictionary with a new first byte instead", got)
	}
}

const execDict2SHA256 = "685a4b67b96f759a871b5a88b9d67fd8b405457000d849d0a0f1f2d62a937e72"

// TestExecDict1RecordsRead: a record deflated with the first dictionary
// (first byte execDeflated), as databases hold them, still reads.
func TestExecDict1RecordsRead(t *testing.T) {
	s := benchScored(7, "deploy", "aaaaaaaaaaaa", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	plain, _ := json.Marshal(&s)
	var b bytes.Buffer
	b.WriteByte(execDeflated)
	w, err := flate.NewWriterDict(&b, execLevel, execDictBytes)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(plain)
	w.Close()
	got, err := execJSON(b.Bytes())
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("a first-dictionary record reads as %d bytes (%v), want its %d of JSON", len(got), err, len(plain))
	}
}

func TestExecCodecRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := benchScored(7, "deploy", "aaaaaaaaaaaa", t0)
	s.SkillKey, s.Version, s.Seq, s.Stored = s.Exec.Key(), "aaaaaaaaaaaa", 7, t0
	data, err := new(execCodec).encode(&s)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(&s)
	if data[0] != execDeflated2 || len(data)*100 > len(plain)*40 {
		t.Errorf("stored %d bytes for %d of JSON (first byte %#x): want deflated to under 40%%", len(data), len(plain), data[0])
	}
	for _, v := range [][]byte{data, plain} {
		var got record.Scored
		if err := decodeExec(v, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("decoded %+v\nwant %+v", got, s)
		}
	}
	if err := decodeExec(data[:len(data)/2], &record.Scored{}); err == nil {
		t.Error("a cut record decoded without an error")
	}
}

// A database whose records were stored as JSON (before they were
// deflated) reads the same, mixed with deflated ones, and a label's
// rescore rewrites a JSON record deflated.
func TestExecJSONRecordsStillRead(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Batch
	for i := 0; i < 6; i++ {
		b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", i), "deploy", "aaaaaaaaaaaa", float64(60+i), t0.Add(time.Duration(i)*time.Minute)))
	}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	before, err := db.Executions(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// Rewrite the even ones as the JSON an older sepad stored.
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		for i := 0; i < 6; i += 2 {
			id := []byte(fmt.Sprintf("a%011d", i))
			data, err := execJSON(ex.Get(id))
			if err != nil {
				return err
			}
			if err := ex.Put(id, bytes.Clone(data)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	after, err := db.Executions(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("with JSON records: %+v\nwant %+v", after, before)
	}
	var each []record.Scored
	if err := db.Each(func(s *record.Scored, _ *reward.Label) error { each = append(each, *s); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(each) != 6 || !reflect.DeepEqual(each[0], before[5]) {
		t.Errorf("Each gave %d executions, the first %+v", len(each), each)
	}
	one, err := db.Execution("a00000000002")
	if err != nil || !reflect.DeepEqual(*one, before[3]) {
		t.Errorf("Execution: %+v, %v", one, err)
	}
	var lite []string
	if err := walkLite(db, "", "", 10, func(s *record.Scored) bool { lite = append(lite, s.Exec.ID); return true }); err != nil || len(lite) != 6 {
		t.Errorf("ExecutionsLite: %v, %v", lite, err)
	}
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	// A replay of a JSON-stored execution is recognised as itself.
	if err := db.Commit(&Batch{Executions: []record.Scored{scored("a00000000000", "deploy", "aaaaaaaaaaaa", 60, t0)}}); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.Stats(); st.Executions != 6 {
		t.Errorf("%d executions after a replay, want 6", st.Executions)
	}
}

// FuzzDecodeExec: no stored bytes make decodeExec panic.
func FuzzDecodeExec(f *testing.F) {
	s := benchScored(1, "deploy", "aaaaaaaaaaaa", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	data, _ := new(execCodec).encode(&s)
	plain, _ := json.Marshal(&s)
	f.Add(data)
	f.Add(plain)
	f.Add([]byte{execDeflated})
	f.Add([]byte{execDeflated2})
	f.Fuzz(func(t *testing.T, v []byte) {
		var got record.Scored
		_ = decodeExec(v, &got)
	})
}

// BenchmarkExecutionBytes commits the same 3,000 executions (benchScored,
// ten calls each, 10 per commit) stored as JSON (as before) and deflated,
// side by side, and reports the database's bytes per execution: the
// file, the pages of the executions bucket, and the mean stored record.
// ns/op is the whole build (3,000 executions).
//
//	go test ./store -run '^$' -bench ExecutionBytes -benchtime 3x
func BenchmarkExecutionBytes(b *testing.B) {
	const n, per = 3000, 10
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	xs := make([]record.Scored, n)
	for i := range xs {
		xs[i] = benchScored(i, fmt.Sprintf("skill-%02d", i%5), fmt.Sprintf("%012d", i%3), t0.Add(time.Duration(i)*time.Second))
	}
	for _, enc := range []struct {
		name string
		fn   func(*execCodec, *record.Scored) ([]byte, error)
	}{{"json", func(_ *execCodec, s *record.Scored) ([]byte, error) { return json.Marshal(s) }}, {"deflate", (*execCodec).encode}} {
		b.Run(enc.name, func(b *testing.B) {
			defer func(f func(*execCodec, *record.Scored) ([]byte, error)) { execEncoder = f }(execEncoder)
			execEncoder = enc.fn
			var file, pages, records int64
			for i := 0; i < b.N; i++ {
				path := filepath.Join(b.TempDir(), "sepa.db")
				db, err := Open(path, Options{})
				if err != nil {
					b.Fatal(err)
				}
				for j := 0; j < n; j += per {
					batch := Batch{Executions: append([]record.Scored(nil), xs[j:j+per]...)}
					if err := db.Commit(&batch); err != nil {
						b.Fatal(err)
					}
				}
				err = db.bolt.View(func(tx *bolt.Tx) error {
					ex := tx.Bucket(bExec)
					st := ex.Stats()
					pages = int64(st.BranchAlloc + st.LeafAlloc)
					records = 0
					return ex.ForEach(func(_, v []byte) error { records += int64(len(v)); return nil })
				})
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
				fi, err := os.Stat(path)
				if err != nil {
					b.Fatal(err)
				}
				file = fi.Size()
			}
			b.ReportMetric(float64(file)/n, "file-B/exec")
			b.ReportMetric(float64(pages)/n, "exec-pages-B/exec")
			b.ReportMetric(float64(records)/n, "record-B/exec")
		})
	}
}

// BenchmarkExecCodec: encoding and decoding one record (benchScored),
// as JSON and deflated, side by side.
func BenchmarkExecCodec(b *testing.B) {
	s := benchScored(7, "deploy", "aaaaaaaaaaaa", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	plain, _ := json.Marshal(&s)
	var c execCodec
	data, _ := c.encode(&s)
	b.Run("encode/json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal(&s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/deflate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := c.encode(&s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var got record.Scored
			if err := decodeExec(plain, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/deflate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var got record.Scored
			if err := decodeExec(data, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
}
