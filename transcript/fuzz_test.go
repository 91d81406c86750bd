package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzRead: any bytes, any cut time: no panic, the window lies within the
// input and ends at a line boundary, counts are not negative, and reading
// the rest from the window's end adds up to one read of the whole.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"session.jsonl", "mixed.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, int64(0), uint16(0))
	}
	f.Add([]byte(`{"type":"assistant","message":{"id":"a","usage":{"input_tokens":-5}}}`+"\n"), int64(0), uint16(0))
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"is_error\":true,\"tool_use_id\":\"x\"}]}}\n{"), int64(1), uint16(40))
	f.Fuzz(func(t *testing.T, data []byte, cut int64, maxLine uint16) {
		o := Options{MaxLine: int(maxLine)}
		if cut != 0 {
			o.Until = time.Unix(cut%4e9, 0).UTC()
		}
		w, err := Read(bytes.NewReader(data), 0, o)
		if err != nil {
			t.Fatal(err)
		}
		if w.End < 0 || w.End > int64(len(data)) || w.End > 0 && data[w.End-1] != '\n' {
			t.Fatalf("window ends at %d of %d", w.End, len(data))
		}
		if w.Usage.Input < 0 || w.Usage.Output < 0 || w.Usage.CacheRead < 0 || w.Usage.CacheCreation < 0 || w.Messages < 0 {
			t.Fatalf("negative counts %+v", w)
		}
		if w.Messages > w.Lines {
			t.Fatalf("%d messages in %d lines", w.Messages, w.Lines)
		}
		whole, _ := Read(bytes.NewReader(data), 0, Options{MaxLine: int(maxLine)})
		rest, _ := Read(bytes.NewReader(data[w.End:]), w.End, Options{MaxLine: int(maxLine), After: w.LastMessage})
		if rest.End != whole.End || w.Lines+rest.Lines != whole.Lines || len(w.Failures)+len(rest.Failures) != len(whole.Failures) {
			t.Fatalf("two reads %d+%d lines to %d, one read %d lines to %d", w.Lines, rest.Lines, rest.End, whole.Lines, whole.End)
		}
	})
}
