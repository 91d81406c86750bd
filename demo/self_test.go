package demo

import "testing"

func TestGoRunBinary(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build1234567/b001/exe/sepad":                          true,
		"/var/folders/x/T/go-build99/b001/exe/sepad":                   true,
		"/home/ana/go/bin/sepad":                                       false,
		"/tmp/go-build1234567/b001/sepad.test":                         false,
		`C:\Users\ana\AppData\Local\Temp\go-build1\b001\exe\sepad.exe`: false, // backslashes are not separators here
	} {
		if got := goRunBinary(path); got != want {
			t.Errorf("goRunBinary(%q) = %v, want %v", path, got, want)
		}
	}
}
