package store

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// Execution records (bucket executions) are the JSON of record.Scored, deflated
// (compress/flate) with a preset dictionary and marked by a first byte
// that names it: execDeflated2 (execDict2) since rubric 4.0.0's records,
// execDeflated (execDict) before. Records of either dictionary, and JSON
// records (the first byte '{') written before both, are read as they
// are, so a database needs no migration. Deflating a record of about 3.6
// KB with the dictionary leaves about 0.78 KB (BENCHMARKS.md): the record
// is most of what the database grows by per execution.
const (
	execDeflated  = 0x01
	execDeflated2 = 0x02
)

// execLevel is flate's level for execution records: 2 compresses a
// record within a few percent of the best level (9), at a fraction of its
// time.
const execLevel = 2

var (
	execDictBytes  = []byte(execDict)
	execDict2Bytes = []byte(execDict2)
	execReaders    = sync.Pool{New: func() any {
		return flate.NewReaderDict(bytes.NewReader(nil), nil)
	}}
)

// execCodec deflates execution records. Its writer (about 1.4 MB of
// compressor state, allocated at the first record) is kept for the life
// of the database: the DB's is used only inside write transactions, which
// bbolt runs one at a time. (A sync.Pool lost it at almost every garbage
// collection and allocated it again, 80 MB in 80 s of the soak.)
type execCodec struct {
	w *flate.Writer
}

// encode returns an execution record's stored bytes.
func (c *execCodec) encode(s *record.Scored) ([]byte, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(data)/3 + 64)
	b.WriteByte(execDeflated2)
	if c.w == nil {
		if c.w, err = flate.NewWriterDict(&b, execLevel, execDict2Bytes); err != nil {
			return nil, err
		}
	} else {
		c.w.Reset(&b)
	}
	if _, err := c.w.Write(data); err != nil {
		return nil, err
	}
	if err := c.w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// execEncoder is execCodec.encode; BenchmarkExecutionBytes swaps it for
// plain JSON to measure both side by side.
var execEncoder = (*execCodec).encode

// putExec stores an execution record under its ID (inside a write
// transaction: it uses db.enc).
func (db *DB) putExec(b *bolt.Bucket, s *record.Scored) error {
	data, err := execEncoder(&db.enc, s)
	if err != nil {
		return fmt.Errorf("encode execution %s: %w", s.Exec.ID, err)
	}
	return b.Put([]byte(s.Exec.ID), data)
}

// execJSON returns the JSON of a stored execution record (v itself when
// it was stored as JSON).
func execJSON(v []byte) ([]byte, error) {
	var dict []byte
	switch {
	case len(v) == 0:
		return v, nil
	case v[0] == execDeflated2:
		dict = execDict2Bytes
	case v[0] == execDeflated:
		dict = execDictBytes
	default:
		return v, nil
	}
	r := execReaders.Get().(io.ReadCloser)
	defer execReaders.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(v[1:]), dict); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(v) * 5)
	if _, err := out.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	return out.Bytes(), nil
}

// decodeExec decodes a stored execution record into dst (a record.Scored or a
// partial view of one).
func decodeExec(v []byte, dst any) error {
	data, err := execJSON(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, dst)
}
