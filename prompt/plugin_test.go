package prompt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPluginDirArgs(t *testing.T) {
	got := pluginDirArgs([]string{"node", "cli.js", "-p", "x", "--plugin-dir", "/a", "--plugin-dir=/b", "--plugin-dir=", "--", "--plugin-dir", "/c"})
	if len(got) != 2 || got[0] != "/a" || got[1] != "/b" {
		t.Fatalf("pluginDirArgs = %q", got)
	}
	if s := splitNUL([]byte("a\x00b\x00")); len(s) != 2 || s[1] != "b" {
		t.Fatalf("splitNUL = %q", s)
	}
}

// FuzzPluginJSON: the plugin files a user or another tool wrote never
// make the hook panic or name a directory outside the marketplace.
func FuzzPluginJSON(f *testing.F) {
	for _, s := range []string{`{"plugins":{"a@b":[{"installPath":"/x","version":"1"}]}}`, `[1, "a", {"b": [2]}, null]`, `{"a":`, `[`, `{"plugins":{"a@b":[{"installPath":`, ""} {
		f.Add([]byte(s))
	}
	cfg := f.TempDir()
	dir := filepath.Join(cfg, "plugins")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, name := range []string{"installed_plugins.json", "known_marketplaces.json"} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, ref := range installedPlugins(cfg) {
			if ref.Dir == "" {
				t.Fatalf("a plugin without a directory from %q", b)
			}
		}
	})
}
