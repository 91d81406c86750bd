package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/jsontest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var testSpec = HookSpec{Transport: "command", Command: "/opt/sepad/bin/sepad hook"}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func semantic(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %v: %s", err, b)
	}
	return v
}

// TestMergeGolden: install into every settings shape, against golden
// files; a second install changes nothing; uninstall restores the file.
func TestMergeGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/settings/*.json")
	if len(files) < 8 {
		t.Fatalf("only %d settings cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			orig, _ := os.ReadFile(f)
			got, events, err := MergeHooks(orig, testSpec)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(f, ".json")+".install.golden", got)
			if len(events) == 0 {
				t.Fatal("nothing changed")
			}
			// Every event has exactly one sepad handler, ours.
			d, err := parseSettings(got)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range Events {
				n := 0
				for _, g := range d.root.get("hooks").get(ev).elemsOrNil() {
					for _, h := range g.get("hooks").elemsOrNil() {
						if isSepadHandler(h) {
							n++
						}
					}
				}
				if n != 1 {
					t.Errorf("%s: %d sepad handlers", ev, n)
				}
			}
			// Other settings are unchanged, in value and key order.
			var before, after map[string]any
			json.Unmarshal(orig, &before)
			json.Unmarshal(got, &after)
			for k, v := range before {
				if k != "hooks" && !reflect.DeepEqual(after[k], v) {
					t.Errorf("setting %q changed", k)
				}
			}
			if kb, ka := topKeyOrder(t, orig), topKeyOrder(t, got); len(kb) > 0 && !reflect.DeepEqual(ka[:len(kb)], kb) {
				t.Errorf("key order %v became %v", kb, ka)
			}
			// Idempotent, byte for byte.
			again, evs, err := MergeHooks(got, testSpec)
			if err != nil || !bytes.Equal(again, got) || len(evs) != 0 {
				t.Fatalf("second install changed %v (%v)", evs, err)
			}
			// Uninstall, knowing the original.
			var pre []byte
			if !bytes.Contains(orig, []byte("sepad")) {
				pre = orig
			}
			un, evs, err := RemoveHooks(got, pre, pre != nil)
			if err != nil || len(evs) == 0 {
				t.Fatalf("uninstall: %v %v", evs, err)
			}
			golden(t, strings.TrimSuffix(f, ".json")+".uninstall.golden", un)
			if pre != nil && name != "odd_spacing" && !bytes.Equal(un, orig) {
				t.Fatalf("uninstall did not restore the file:\n%s\n--- original\n%s", un, orig)
			}
			if pre != nil && !reflect.DeepEqual(semantic(t, un), semantic(t, orig)) {
				t.Fatal("uninstall did not restore the settings")
			}
			if d, _ := parseSettings(un); d.hasSepad() {
				t.Fatal("sepad handler left after uninstall")
			}
		})
	}
}

func TestMergeKeepsUserEntries(t *testing.T) {
	orig, _ := os.ReadFile("testdata/settings/shared_group.json")
	got, _, err := MergeHooks(orig, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	// The customised sepad handler (extra arguments) is the user's: kept,
	// and no second one is added to PostToolUse.
	if !bytes.Contains(got, []byte(`--home /data/sepa`)) || bytes.Count(got, []byte(`"/opt/sepad/bin/sepad hook"`)) != len(Events)-1 {
		t.Fatalf("customised handler not kept alone:\n%s", got)
	}
	// Uninstall removes it (it is a sepad hook) but not the user's logger.
	un, _, _ := RemoveHooks(got, nil, false)
	if bytes.Contains(un, []byte("sepad")) || !bytes.Contains(un, []byte("log-tools.sh")) || !bytes.Contains(un, []byte(`"hooks_note"`)) {
		t.Fatalf("uninstall:\n%s", un)
	}
}

func TestMergeUpdatesMovedBinaryAndTransport(t *testing.T) {
	orig, _ := os.ReadFile("testdata/settings/sepad_moved.json")
	got, events, err := MergeHooks(orig, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte("/usr/local/bin/sepad")) || bytes.Contains(got, []byte("7777")) {
		t.Fatalf("old handlers left:\n%s", got)
	}
	if !slices.Contains(events, "PreToolUse") || !slices.Contains(events, "Stop") {
		t.Fatalf("events %v", events)
	}
	http := HookSpec{Transport: "http", URL: "http://127.0.0.1:7391/v1/hook"}
	h, _, err := MergeHooks(got, http)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(h, []byte("/opt/sepad/bin/sepad")) || bytes.Count(h, []byte(`"url": "http://127.0.0.1:7391/v1/hook"`)) != len(Events) {
		t.Fatalf("switching to http:\n%s", h)
	}
	for _, bad := range []HookSpec{
		{Transport: "http", URL: "http://example.com/v1/hook"},
		{Transport: "http", URL: "https://127.0.0.1:1/v1/hook"},
		{Transport: "grpc"},
		{Transport: "command"},
	} {
		if _, _, err := MergeHooks([]byte(`{}`), bad); err == nil {
			t.Errorf("spec %+v accepted", bad)
		}
	}
}

func TestMergeRefusesShapes(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"invalid", "{\n  \"a\": 1,\n  \"b\": ,\n}", "line 3, column 8"},
		{"trailing comma", "{\"a\": 1,}", "invalid JSON"},
		{"comment", "{\n// x\n}", "line 2"},
		{"array", `[1]`, "not a JSON object"},
		{"hooks not object", `{"hooks": []}`, `"hooks" is not an object`},
		{"event not array", `{"hooks": {"Stop": {}}}`, "hooks.Stop is not an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := MergeHooks([]byte(tc.in), testSpec)
			if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	for in, want := range map[string][]string{
		`/usr/bin/sepad hook`:                  {"/usr/bin/sepad", "hook"},
		`'/my tools/sepad' hook --home "/a b"`: {"/my tools/sepad", "hook", "--home", "/a b"},
		`"C:\\Program Files\\sepad.exe" hook`:  {`C:\Program Files\sepad.exe`, "hook"},
		`/a\ b/sepad hook`:                     {"/a b/sepad", "hook"},
		`'it'\''s/sepad' hook`:                 {"it's/sepad", "hook"},
	} {
		if got := shellWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("shellWords(%q) = %q, want %q", in, got, want)
		}
	}
	for bin, want := range map[string]string{
		"/usr/local/bin/sepad":   "/usr/local/bin/sepad hook",
		"/home/ana/my bin/sepad": "'/home/ana/my bin/sepad' hook",
		"/home/o'neil/bin/sepad": `'/home/o'\''neil/bin/sepad' hook`,
		`C:\Program Files\sepad`: `'C:\Program Files\sepad' hook`,
	} {
		got := CommandFor(bin)
		if got != want {
			t.Errorf("CommandFor(%q) = %q, want %q", bin, got, want)
		}
		if w := shellWords(got); w[0] != bin || w[1] != "hook" {
			t.Errorf("CommandFor(%q) does not split back: %q", bin, w)
		}
	}
	for _, cmd := range []string{"sepad hook", "/x/sepad.exe hook", "/x/SEPAD.EXE hook --home y"} {
		if !isSepadHandler(mustNode(t, `{"type":"command","command":`+quote(cmd)+`}`)) {
			t.Errorf("%q not recognised as sepad's", cmd)
		}
	}
	for _, cmd := range []string{"sepad run", "/x/sepadx hook", "echo sepad hook", "sepad", "/x/sepad.test hook"} {
		if isSepadHandler(mustNode(t, `{"type":"command","command":`+quote(cmd)+`}`)) {
			t.Errorf("%q recognised as sepad's", cmd)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func mustNode(t *testing.T, s string) *jnode {
	d, err := parseSettings([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return d.root
}

var tNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestInstallUninstallFiles(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, false, "")
	bk := BackupDir(filepath.Join(dir, "sepa"), path)
	os.MkdirAll(filepath.Dir(path), 0o755)
	orig, _ := os.ReadFile("testdata/settings/other_hooks.json")
	os.WriteFile(path, orig, 0o640)

	// Dry run: computes, writes nothing.
	ch, err := Install(path, bk, testSpec, true, tNow)
	if err != nil || !ch.Changed || ch.Backup != "" {
		t.Fatalf("dry run: %+v %v", ch, err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, orig) {
		t.Fatal("dry run wrote the file")
	}
	if bks, _ := filepath.Glob(filepath.Join(bk, "*")); len(bks) != 0 {
		t.Fatalf("dry run wrote %v", bks)
	}

	ch, err = Install(path, bk, testSpec, false, tNow)
	if err != nil || !ch.Changed || len(ch.Events) != len(Events) {
		t.Fatalf("install: %+v %v", ch, err)
	}
	if b, _ := os.ReadFile(ch.Backup); !bytes.Equal(b, orig) {
		t.Fatal("backup is not the original")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode changed to %v", fi.Mode())
	}
	installed, _ := os.ReadFile(path)
	if !bytes.Equal(installed, ch.After) {
		t.Fatal("file differs from the change's After")
	}
	// Idempotent: nothing written, no new backup.
	ch2, err := Install(path, bk, testSpec, false, tNow.Add(time.Second))
	if err != nil || ch2.Changed || ch2.Backup != "" {
		t.Fatalf("second install: %+v %v", ch2, err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, installed) {
		t.Fatal("second install changed the file")
	}
	// Uninstall restores the original byte for byte.
	uch, err := Uninstall(path, bk, false, tNow.Add(2*time.Second))
	if err != nil || !uch.Changed || uch.Removed {
		t.Fatalf("uninstall: %+v %v", uch, err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, orig) {
		t.Fatalf("after uninstall:\n%s", b)
	}
	if b, _ := os.ReadFile(uch.Backup); !bytes.Equal(b, installed) {
		t.Fatal("uninstall backup is not the installed file")
	}
	// Uninstall again: nothing to do.
	if uch, err := Uninstall(path, bk, false, tNow.Add(3*time.Second)); err != nil || uch.Changed {
		t.Fatalf("second uninstall: %+v %v", uch, err)
	}
	// The backups are in bk, none in the project's .claude.
	if beside, _ := filepath.Glob(path + ".*"); len(beside) != 0 || filepath.Dir(ch.Backup) != bk || filepath.Dir(uch.Backup) != bk {
		t.Fatalf("backups beside the file %v; install's %s, uninstall's %s", beside, ch.Backup, uch.Backup)
	}
	if fi, err := os.Stat(bk); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("backup directory: %v %v", fi, err)
	}
}

// TestUninstallReadsBackupsBesideTheFile: a project installed by an
// older sepad has its install backup beside settings.json; uninstall
// still finds it and restores the original.
func TestUninstallReadsBackupsBesideTheFile(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, false, "")
	os.MkdirAll(filepath.Dir(path), 0o755)
	orig, _ := os.ReadFile("testdata/settings/empty_containers.json")
	os.WriteFile(path, orig, 0o644)
	if _, err := Install(path, filepath.Dir(path), testSpec, false, tNow); err != nil { // where older versions wrote it
		t.Fatal(err)
	}
	bk := BackupDir(filepath.Join(dir, "sepa"), path)
	if _, err := Install(path, bk, HookSpec{Transport: "http", URL: "http://127.0.0.1:9/v1/hook"}, false, tNow.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(path, bk, false, tNow.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, orig) {
		t.Fatalf("after uninstall:\n%s\nwant\n%s", b, orig)
	}
}

func TestInstallCreatesAndUninstallRemoves(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, false, "")
	bk := BackupDir(filepath.Join(dir, "sepa"), path)
	ch, err := Install(path, bk, testSpec, false, tNow)
	if err != nil || !ch.Changed || ch.Before != nil {
		t.Fatalf("%+v %v", ch, err)
	}
	if b, _ := os.ReadFile(ch.Backup); len(b) != 0 {
		t.Fatal("the backup of a missing file must be empty")
	}
	uch, err := Uninstall(path, bk, false, tNow.Add(time.Second))
	if err != nil || !uch.Removed {
		t.Fatalf("%+v %v", uch, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("settings file sepad created is still there")
	}
	// If the user added settings meanwhile, the file stays.
	Install(path, bk, testSpec, false, tNow.Add(2*time.Second))
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"hooks"`), []byte(`"model": "opus",
  "hooks"`), 1), 0o644)
	uch, err = Uninstall(path, bk, false, tNow.Add(3*time.Second))
	b, _ = os.ReadFile(path)
	if err != nil || uch.Removed || strings.TrimSpace(string(b)) != "{\n  \"model\": \"opus\"\n}" {
		t.Fatalf("%+v %v:\n%s", uch, err, b)
	}
}

func TestUninstallKeepsPreexistingEmptyContainers(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, false, "")
	bk := BackupDir(filepath.Join(dir, "sepa"), path)
	os.MkdirAll(filepath.Dir(path), 0o755)
	orig, _ := os.ReadFile("testdata/settings/empty_containers.json")
	os.WriteFile(path, orig, 0o644)
	Install(path, bk, testSpec, false, tNow)
	// Reinstall with another transport: a second backup, holding sepad
	// entries; Uninstall must look past it to the original.
	if _, err := Install(path, bk, HookSpec{Transport: "http", URL: "http://127.0.0.1:9/v1/hook"}, false, tNow.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(path, bk, false, tNow.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, orig) {
		t.Fatalf("after uninstall:\n%s\nwant\n%s", b, orig)
	}
	// Without any backup, containers emptied by the removal go.
	for _, bk := range must(filepath.Glob(filepath.Join(bk, "*"))) {
		os.Remove(bk)
	}
	Install(path, bk, testSpec, false, tNow.Add(3*time.Second))
	for _, bk := range must(filepath.Glob(filepath.Join(bk, "*"))) {
		os.Remove(bk)
	}
	Uninstall(path, bk, false, tNow.Add(4*time.Second))
	if b, _ := os.ReadFile(path); !bytes.Equal(b, orig) {
		// Stop and PreToolUse were empty before and are empty after our
		// removal, but nothing says so: they were emptied by us.
		if strings.TrimSpace(string(b)) != "{}" {
			t.Fatalf("without backup:\n%s", b)
		}
	}
}

func must[T any](v T, _ error) T { return v }

func TestInstallRefusesInvalidFile(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, false, "")
	bk := BackupDir(filepath.Join(dir, "sepa"), path)
	os.MkdirAll(filepath.Dir(path), 0o755)
	bad := []byte("{\n  \"hooks\": {\n    \"Stop\": [\n  }\n")
	os.WriteFile(path, bad, 0o644)
	_, err := Install(path, bk, testSpec, false, tNow)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("err = %v; want the file name and the line", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, bad) {
		t.Fatal("invalid file was changed")
	}
	if bks, _ := filepath.Glob(path + ".*"); len(bks) != 0 {
		t.Fatalf("files written next to an invalid settings file: %v", bks)
	}
	if _, err := Uninstall(path, bk, false, tNow); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("uninstall err = %v", err)
	}
}

func TestIsSepadURL(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:7391/v1/hook": true,
		"http://localhost:80/v1/hook":   true,
		"http://[::1]:7391/v1/hook":     true,
		"http://127.0.0.1/v1/hook":      true,
		"http://[::1]/v1/hook":          true,
		"https://127.0.0.1:1/v1/hook":   false,
		"http://127.0.0.1:1/v1/hooks":   false,
		"http://127.0.0.1:1/v1/hook?x":  false,
		"http://10.0.0.1:1/v1/hook":     false,
		"http://127.0.0.1.evil/v1/hook": false,
		"http://127.0.0.1:x/v1/hook":    false,
		"http://user@127.0.0.1/v1/hook": false,
		"http://127.0.0.1:1":            false,
		"":                              false,
	} {
		if got := isSepadURL(u); got != want {
			t.Errorf("isSepadURL(%q) = %v", u, got)
		}
	}
}

// topKeyOrder returns the member names of the top-level object of b, in order.
func topKeyOrder(t *testing.T, b []byte) []string {
	t.Helper()
	keys, err := jsontest.TopKeys(b)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestExecForm: install writes exec-form handlers ("command" is the
// binary, "args" ["hook"]), recognises them on the next install and at
// uninstall, replaces a shell-form handler by one (and back), keeps one the
// user gave extra arguments, and leaves alone what only looks like sepad.
func TestExecForm(t *testing.T) {
	exec := ExecSpec("/opt/sepad/bin/sepad-hook")
	shell := HookSpec{Transport: "command", Command: CommandFor("/opt/sepad/bin/sepad-hook")}
	got, events, err := MergeHooks([]byte(`{"model": "opus"}`), exec)
	if err != nil || len(events) != len(Events) {
		t.Fatalf("merge: %v %v", events, err)
	}
	var v struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Args          []string
			}
		}
	}
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	for _, ev := range Events {
		hs := v.Hooks[ev]
		if len(hs) != 1 || len(hs[0].Hooks) != 1 || hs[0].Hooks[0].Command != "/opt/sepad/bin/sepad-hook" || !slices.Equal(hs[0].Hooks[0].Args, []string{"hook"}) {
			t.Fatalf("%s: %+v", ev, hs)
		}
	}
	if again, ev2, _ := MergeHooks(got, exec); !bytes.Equal(again, got) || ev2 != nil {
		t.Fatalf("second install changed %v:\n%s", ev2, again)
	}
	found, err := Find(got)
	if err != nil || len(found) != len(Events) || !found[0].Exec || found[0].Program != "/opt/sepad/bin/sepad-hook" || found[0].Transport != "command" {
		t.Fatalf("Find: %+v %v", found, err)
	}
	// Shell form replaces exec form, one handler per event, and back.
	sh, _, _ := MergeHooks(got, shell)
	if bytes.Contains(sh, []byte(`"args"`)) || bytes.Count(sh, []byte(`"/opt/sepad/bin/sepad-hook hook"`)) != len(Events) {
		t.Fatalf("exec -> shell:\n%s", sh)
	}
	if back, _, _ := MergeHooks(sh, exec); !bytes.Equal(back, got) {
		t.Fatalf("shell -> exec:\n%s", back)
	}
	if f, _ := Find(sh); len(f) != len(Events) || f[0].Exec || f[0].Program != "/opt/sepad/bin/sepad-hook" {
		t.Fatalf("Find shell form: %+v", f)
	}
	// Uninstall removes them all.
	if un, ev, _ := RemoveHooks(got, []byte(`{"model": "opus"}`), true); len(ev) != len(Events) || !bytes.Contains(un, []byte("opus")) || bytes.Contains(un, []byte("sepad")) {
		t.Fatalf("uninstall %v:\n%s", ev, un)
	}

	for _, tc := range []struct {
		name    string
		handler string
		sepad   bool
	}{
		{"exec form", `{"type": "command", "command": "/x/sepad", "args": ["hook"]}`, true},
		{"exec form .exe", `{"type": "command", "command": "C:\\sepad\\sepad-hook.exe", "args": ["hook"]}`, true},
		{"exec form with flags", `{"type": "command", "command": "/x/sepad", "args": ["hook", "--home", "/d"]}`, true},
		{"exec form, other subcommand", `{"type": "command", "command": "/x/sepad", "args": ["run"]}`, false},
		{"exec form, no arguments", `{"type": "command", "command": "/x/sepad-hook", "args": []}`, false},
		{"exec form, other program", `{"type": "command", "command": "/x/sepad-tools", "args": ["hook"]}`, false},
		{"args not an array", `{"type": "command", "command": "/x/sepad", "args": "hook"}`, false},
		{"args not strings", `{"type": "command", "command": "/x/sepad", "args": [1]}`, false},
		{"shell form", `{"type": "command", "command": "/x/sepad hook"}`, true},
		{"shell form quoted", `{"type": "command", "command": "'/a b/sepad' hook"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isSepadHandler(mustNode(t, tc.handler)); got != tc.sepad {
				t.Fatalf("isSepadHandler = %v", got)
			}
		})
	}

	// A customised handler, in either form, is the user's: kept as it is.
	for _, custom := range []string{
		`{"type": "command", "command": "/x/sepad", "args": ["hook", "--home", "/d"]}`,
		`{"type": "command", "command": "/x/sepad hook --home /d"}`,
	} {
		in := `{"hooks": {"Stop": [{"hooks": [` + custom + `]}]}}`
		out, _, err := MergeHooks([]byte(in), exec)
		if err != nil || !bytes.Contains(out, []byte("--home")) || bytes.Count(out, []byte("/opt/sepad/bin/sepad-hook")) != len(Events)-1 {
			t.Fatalf("customised %s not kept alone (%v):\n%s", custom, err, out)
		}
	}
}

// TestHTTPSpec: the http transport posts with the secret named by an
// environment variable (never the secret itself), installs a command
// handler for SessionStart (Claude Code never sends it to http handlers),
// updates an older http install without the header, and uninstalls all.
func TestHTTPSpec(t *testing.T) {
	spec := HTTPSpec("http://127.0.0.1:7391/v1/hook", "/opt/sepad/bin/sepad-hook")
	old, _, err := MergeHooks([]byte(`{"model": "opus"}`), HookSpec{Transport: "http", URL: "http://127.0.0.1:7391/v1/hook"})
	if err != nil {
		t.Fatal(err)
	}
	got, changed, err := MergeHooks(old, spec)
	if err != nil || len(changed) != len(Events) {
		t.Fatalf("changed %v, err %v:\n%s", changed, err, got)
	}
	again, changed, _ := MergeHooks(got, spec)
	if !bytes.Equal(again, got) || len(changed) != 0 {
		t.Fatalf("not idempotent: %v", changed)
	}
	found, err := Find(got)
	if err != nil || len(found) != len(Events) {
		t.Fatalf("Find: %v %+v", err, found)
	}
	for _, f := range found {
		switch {
		case f.Event == "SessionStart":
			if f.Transport != "command" || f.Program != "/opt/sepad/bin/sepad-hook" || !f.Exec {
				t.Errorf("SessionStart: %+v", f)
			}
		case f.Transport != "http" || f.URL != "http://127.0.0.1:7391/v1/hook" || f.Headers["Authorization"] != "Bearer $SEPAD_SECRET" ||
			len(f.AllowedEnvVars) != 1 || f.AllowedEnvVars[0] != SecretEnv:
			t.Errorf("%s: %+v", f.Event, f)
		}
	}
	back, events, err := RemoveHooks(got, []byte(`{"model": "opus"}`), true)
	if err != nil || len(events) != len(Events) || bytes.Contains(back, []byte("sepad")) || !bytes.Contains(back, []byte(`"opus"`)) {
		t.Fatalf("uninstall: %v %v\n%s", events, err, back)
	}
}

func TestEnabledPlugins(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`{"enabledPlugins":{"sepad@sepad":true,"other@x":true}}`, []string{"sepad@sepad"}},
		{`{"enabledPlugins":{"sepad@sepad":false}}`, nil},
		{`{"enabledPlugins":{"sepad@b":true,"sepad@a":true}}`, []string{"sepad@a", "sepad@b"}},
		{`{"enabledPlugins":{"sepadx@sepad":true}}`, nil},
		{`{"hooks":{}}`, nil},
		{`not json`, nil},
	} {
		if got := EnabledPlugins([]byte(tc.in), PluginName); !slices.Equal(got, tc.want) {
			t.Errorf("EnabledPlugins(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
