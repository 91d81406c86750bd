package importer

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeFile: any bytes decode without panicking, every record has a
// session, an event and a payload, and Prepare keeps each key once.
func FuzzDecodeFile(f *testing.F) {
	files, _ := filepath.Glob("../testdata/import/*/*/*.json")
	more, _ := filepath.Glob("../testdata/import/*/*.jsonl")
	for _, p := range append(files, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(p), b)
	}
	f.Add("stop.json", []byte("[{\"raw_input\":{\"session_id\":\"s\"},\"timestamp\":1}"))
	f.Add("x.jsonl", []byte("\xff\xfe{\x00}\x00"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		recs, skips, rep := DecodeFile(name, data)
		if rep.Payloads != len(recs) {
			t.Fatalf("report says %d payloads, %d returned", rep.Payloads, len(recs))
		}
		for _, r := range recs {
			if r.Session == "" || r.Event == "" || len(r.Payload) == 0 {
				t.Fatalf("incomplete record %+v", r)
			}
		}
		for _, s := range skips {
			if s.Reason == "" {
				t.Fatal("skip without a reason")
			}
		}
		kept, dups := Prepare(recs)
		if len(kept)+dups != len(recs) {
			t.Fatalf("%d kept + %d duplicates != %d", len(kept), dups, len(recs))
		}
		seen := map[string]bool{}
		for _, r := range kept {
			if seen[r.Key] {
				t.Fatalf("key %s kept twice", r.Key)
			}
			seen[r.Key] = true
		}
	})
}
