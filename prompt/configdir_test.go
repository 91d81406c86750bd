package prompt

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestConfigDirFrom(t *testing.T) {
	for _, tc := range []struct {
		name, env, home, want string
	}{
		{"unset", "", "/home/ana", "/home/ana/.claude"},
		{"set", "/etc/cc", "/home/ana", "/etc/cc"},
		{"set, no home", "/etc/cc", "", "/etc/cc"},
		{"cleaned", "/etc/cc/./x/../", "/home/ana", "/etc/cc"},
		{"relative kept relative", "cfg", "/home/ana", "cfg"},
		{"nothing", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ConfigDirFrom(func(k string) string {
				if k == EnvVar {
					return tc.env
				}
				return "/wrong"
			}, tc.home)
			if got != filepath.FromSlash(tc.want) {
				t.Fatalf("ConfigDirFrom = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestConfigDir(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cfg")
	t.Setenv(EnvVar, cfg)
	if d, err := ConfigDir(); err != nil || d != cfg {
		t.Fatalf("with %s set: %q, %v", EnvVar, d, err)
	}
	home := t.TempDir()
	t.Setenv(EnvVar, "")
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	if d, err := ConfigDir(); err != nil || d != filepath.Join(home, ".claude") {
		t.Fatalf("unset: %q, %v", d, err)
	}
	t.Setenv("HOME", "")
	t.Setenv("USERPROFILE", "")
	t.Setenv("home", "") // plan9
	if d, err := ConfigDir(); !errors.Is(err, ErrNoDir) || d != "" {
		t.Fatalf("no home: %q, %v; want ErrNoDir", d, err)
	}
}
