package service

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestServiceFiles compares the unit of each system with its golden file
// (testdata/service; regenerate with go test ./service -run
// TestServiceFiles -update) and checks the commands that start, stop and
// reload it. The Windows task is compared as text after decoding it from
// UTF-16; the values carry characters that need escaping.
func TestServiceFiles(t *testing.T) {
	for _, tc := range []struct {
		goos, golden string
		p            Params
		enable       string
		reload       string
	}{
		{"linux", "sepad.service", Params{UserHome: "/home/ada", User: "ada", Bin: "/home/ada/go/bin/sepad", Home: "/home/ada/.local/state/sepa", UID: 1000},
			"systemctl --user daemon-reload; systemctl --user enable --now sepad.service", "systemctl --user reload sepad.service"},
		{"darwin", "dev.sepad.plist", Params{UserHome: "/Users/ada", User: "ada", Bin: "/Users/ada/go/bin/sepad", Home: "/Users/ada/Library/State/R&D <sepa>", UID: 501},
			"launchctl load -w /Users/ada/Library/LaunchAgents/dev.sepad.plist", "launchctl kill SIGHUP gui/501/dev.sepad"},
		{"windows", "sepad-task.xml", Params{UserHome: `C:\Users\Ada Lovelace`, User: `WORKGROUP\ada`, Bin: `C:\Users\Ada Lovelace\go\bin\sepad.exe`, Home: `C:\Users\Ada Lovelace\AppData\Local\sepa`},
			"schtasks /Create /TN sepad /XML " + filepath.Join(`C:\Users\Ada Lovelace\AppData\Local\sepa`, "sepad-task.xml") + " /F; schtasks /Run /TN sepad",
			"schtasks /End /TN sepad; schtasks /Run /TN sepad"},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			svc, err := For(tc.goos, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			content := svc.Content
			if tc.goos == "windows" {
				content = decodeUTF16(t, content)
			}
			golden := filepath.Join("testdata", "service", tc.golden)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(content, want) {
				t.Errorf("%s differs from %s:\n%s", tc.goos, golden, content)
			}
			if tc.goos != "linux" {
				// Well-formed XML whose values read back unescaped.
				dec := xml.NewDecoder(bytes.NewReader(bytes.Replace(content, []byte(`encoding="UTF-16"`), []byte(`encoding="UTF-8"`), 1)))
				var text strings.Builder
				for {
					tok, err := dec.Token()
					if err != nil {
						if err.Error() != "EOF" {
							t.Fatalf("not well-formed XML: %v", err)
						}
						break
					}
					if cd, ok := tok.(xml.CharData); ok {
						text.Write(cd)
					}
				}
				if !strings.Contains(text.String(), tc.p.Home) || !strings.Contains(text.String(), tc.p.Bin) {
					t.Errorf("the binary %q or the state directory %q do not read back from:\n%s", tc.p.Bin, tc.p.Home, text.String())
				}
			}
			if got := joinAll(svc.Enable); got != tc.enable {
				t.Errorf("enable: %q, want %q", got, tc.enable)
			}
			if got := joinAll(svc.Reload); got != tc.reload {
				t.Errorf("reload: %q, want %q", got, tc.reload)
			}
		})
	}
	if _, err := For("windows", Params{Home: `C:\sepa`, Bin: `C:\sepad.exe`}); err == nil {
		t.Error("a task without the user's account name was made")
	}
	if _, err := For("plan9", Params{}); err == nil || !strings.Contains(err.Error(), "run `sepad run` from your own init system") {
		t.Errorf("an unknown system: %v", err)
	}
}

func joinAll(cmds [][]string) string {
	var s []string
	for _, c := range cmds {
		s = append(s, join(c))
	}
	return strings.Join(s, "; ")
}

// decodeUTF16 checks the byte order mark and CRLF line ends of a task
// file and returns its text with LF line ends.
func decodeUTF16(t *testing.T, b []byte) []byte {
	t.Helper()
	if len(b) < 2 || b[0] != 0xff || b[1] != 0xfe || len(b)%2 != 0 {
		t.Fatalf("not UTF-16LE with a byte order mark: % x", b[:min(len(b), 8)])
	}
	u := make([]uint16, 0, len(b)/2-1)
	for i := 2; i < len(b); i += 2 {
		u = append(u, binary.LittleEndian.Uint16(b[i:]))
	}
	s := string(utf16.Decode(u))
	if strings.Count(s, "\r\n") != strings.Count(s, "\n") {
		t.Errorf("not every line ends in CRLF")
	}
	return []byte(strings.ReplaceAll(s, "\r\n", "\n"))
}

// TestWindowsArg checks the quoting against the rules Go's own Windows
// command-line parser follows (syscall.EscapeArg's cases).
func TestWindowsArg(t *testing.T) {
	for _, tc := range [][2]string{
		{"run", "run"},
		{"", `""`},
		{`C:\sepa`, `C:\sepa`},
		{`C:\Users\Ada Lovelace\sepa`, `"C:\Users\Ada Lovelace\sepa"`},
		{`C:\dir with space\`, `"C:\dir with space\\"`},
		{`a"b`, `"a\"b"`},
		{`a\"b c`, `"a\\\"b c"`},
		{"tab\there", "\"tab\there\""},
	} {
		if got := windowsArg(tc[0]); got != tc[1] {
			t.Errorf("windowsArg(%q) = %s, want %s", tc[0], got, tc[1])
		}
	}
}
