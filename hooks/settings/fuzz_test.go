package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzMergeHooks: on any settings file, MergeHooks either refuses it with
// ErrUnusable or returns valid JSON with exactly one sepad handler per
// event; merging again changes nothing; and removing the hooks again
// gives back the same settings, value for value. Seeds: the settings
// fixtures of testdata/settings/ and testdata/fuzz/FuzzMergeHooks/.
func FuzzMergeHooks(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/settings/*.json")
	for _, p := range fixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"other"}]}]}}`))
	f.Add([]byte(`{"hooks":[]}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(""))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/sepad","args":["hook"]}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/other","args":["hook"]}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Shell form or exec form, chosen by the input's length.
		spec := HookSpec{Command: "/opt/bin/sepad hook"}
		if len(data)%2 == 1 {
			spec = ExecSpec("/opt/bin/sepad")
		}
		// A handler of an earlier install (a command naming sepad, an http
		// handler posting to /v1/hook) is sepad's to replace and remove.
		earlier := bytes.Contains(data, []byte("sepad")) || bytes.Contains(data, []byte("v1/hook"))
		merged, _, err := MergeHooks(data, spec)
		if err != nil {
			if !errors.Is(err, ErrUnusable) {
				t.Fatalf("error %v does not wrap ErrUnusable", err)
			}
			return
		}
		if !json.Valid(merged) {
			t.Fatalf("merged settings are not JSON: %q", merged)
		}
		var doc map[string]any
		if err := json.Unmarshal(merged, &doc); err != nil {
			t.Fatalf("merged settings: %v: %q", err, merged)
		}
		events, _ := doc["hooks"].(map[string]any)
		for _, ev := range Events {
			n := 0
			groups, _ := events[ev].([]any)
			for _, g := range groups {
				gm, _ := g.(map[string]any)
				hs, _ := gm["hooks"].([]any)
				for _, h := range hs {
					if hm, _ := h.(map[string]any); hm["command"] == spec.Command {
						n++
					}
				}
			}
			if n != 1 && !earlier {
				t.Fatalf("%s has %d sepad handlers: %q", ev, n, merged)
			}
		}
		again, changed, err := MergeHooks(merged, spec)
		if err != nil || len(changed) != 0 || !bytes.Equal(again, merged) {
			t.Fatalf("second merge changed %v (err %v):\n%q\n%q", changed, err, merged, again)
		}
		if earlier {
			return // uninstall removes the earlier handlers too
		}
		removed, _, err := RemoveHooks(merged, data, true)
		if err != nil {
			t.Fatalf("remove: %v", err)
		}
		if !sameJSON(data, removed) {
			t.Fatalf("install then uninstall changed the settings:\n before %q\n after  %q", data, removed)
		}
	})
}

// sameJSON reports whether a and b hold the same JSON values (duplicate
// keys resolved as encoding/json does). An empty file is an empty object,
// as MergeHooks reads it.
func sameJSON(a, b []byte) bool {
	if len(bytes.TrimSpace(a)) == 0 {
		a = []byte("{}")
	}
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y) || strings.TrimSpace(string(a)) == strings.TrimSpace(string(b))
}
