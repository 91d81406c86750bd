package importer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestLoadGolden reads each fixture directory of hooks-mastery-style logs
// (../testdata/import) and compares the report and the records with
// testdata/<name>.golden.json.
func TestLoadGolden(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/import/*")
	if len(dirs) < 5 {
		t.Fatalf("fixtures missing: %v", dirs)
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			p := d
			if fi, err := os.Stat(filepath.Join(d, "logs")); err == nil && fi.IsDir() {
				p = filepath.Join(d, "logs")
			}
			recs, rep, err := Load([]string{p})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(struct {
				Report  Report   `json:"report"`
				Records []Record `json:"records"`
			}{rep, recs}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = bytes.ReplaceAll(got, []byte(filepath.ToSlash(d)), []byte("DIR"))
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file (go test ./importer -update to accept):\n%s", name, got)
			}
		})
	}
}
