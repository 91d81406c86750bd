// Package doctor is `sepad doctor`: each check of what sepad needs (the
// hook in the settings files, the http hook, trust, the state files, the
// daemon, what the Claude Code version lets sepad see, the lag, the
// mutator's login, the team database, ingestion and free space) printed
// as OK, WARN or FAIL with its fix.
package doctor

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/hooks/settings"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// hookEvents are the events `sepad install` registers.
var hookEvents = settings.Events

// doctor prints the checks and counts those that failed.
type doctor struct {
	w      io.Writer
	failed int
}

func (d *doctor) ok(format string, a ...any) {
	fmt.Fprintf(d.w, "OK    %s\n", fmt.Sprintf(format, a...))
}
func (d *doctor) warn(msg, fix string) { fmt.Fprintf(d.w, "WARN  %s\n      fix: %s\n", msg, fix) }
func (d *doctor) fail(msg, fix string) {
	d.failed++
	fmt.Fprintf(d.w, "FAIL  %s\n      fix: %s\n", msg, fix)
}

// Run runs every check of `sepad doctor` for project and the state
// directory home, in order, printing a line (OK, WARN or FAIL with its
// fix) for each to w, and returns how many failed.
func Run(w io.Writer, project, home string) int {
	if home == "" {
		home = spool.Home()
	}
	d := &doctor{w: w}
	d.checkSettings(project)
	d.checkHTTP(project, home)
	d.checkTrust(project, home)
	d.checkFiles(home)
	up := d.checkDaemon(home)
	d.checkVersion(home)
	d.checkLag(home, up)
	d.checkMutatorLogin(home, up)
	d.checkTeam(home)
	// The ingestion checks: a full disk, runtime fallback files waiting
	// to be read, little free space.
	d.checkIngest(home)
	return d.failed
}

// checkSettings finds sepad's hook entries in the settings files that
// apply to the project, and checks the binary they run.
func (d *doctor) checkSettings(project string) {
	abs, _ := filepath.Abs(project)
	files := []string{filepath.Join(abs, ".claude", "settings.json"), filepath.Join(abs, ".claude", "settings.local.json")}
	userSettings := "~/.claude/settings.json"
	if dir, err := prompt.ConfigDir(); err == nil { // $CLAUDE_CONFIG_DIR when set
		userSettings = filepath.Join(dir, "settings.json")
		files = append([]string{userSettings}, files...)
	}
	found := map[string]bool{}
	bins := map[string]bool{}
	execForm := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		hs, err := settings.Find(b)
		if err != nil {
			d.fail(fmt.Sprintf("%s: %v", f, err), "fix the file by hand; Claude Code ignores it as it is")
			continue
		}
		for _, h := range hs {
			found[h.Event] = true
			if h.Program != "" {
				bins[h.Program] = true
			}
			if h.Exec {
				execForm = true
			}
		}
	}
	var missing []string
	for _, ev := range hookEvents {
		if !found[ev] {
			missing = append(missing, ev)
		}
	}
	configDir, err := prompt.ConfigDir()
	if err != nil {
		configDir = ""
	}
	plugins := settings.SepadPluginEnabled(configDir, abs)
	switch {
	case len(found) == 0 && len(plugins) > 0:
		// The plugin's hooks record every event: no settings hook needed.
	case len(found) == 0:
		d.fail("no sepad hook in "+userSettings+" or "+filepath.Join(abs, ".claude", "settings*.json"),
			"run `sepad install --user` (all projects) or `sepad install --project DIR`, then check with /hooks in Claude Code")
	case len(missing) > 0:
		d.warn("sepad's hook is missing for "+strings.Join(missing, ", "), "run `sepad install` again: it adds only what is missing")
	default:
		d.ok("the hook is installed for all %d events", len(hookEvents))
	}
	for _, p := range plugins {
		if len(found) > 0 {
			d.warn(fmt.Sprintf("sepad is installed twice: its hook in settings and the plugin %s (enabled in %s); Claude Code runs both hooks for every event and sepad keeps each event once", p.ID, p.File),
				"keep one: `claude plugin disable "+p.ID+"`, or `sepad uninstall` (docs/claude-code.md, \"Double installs\")")
		} else {
			d.ok("the sepad plugin %s is enabled (in %s): its hooks record every event", p.ID, p.File)
		}
	}
	if execForm {
		d.ok("the hook is in exec form: Claude Code starts it without a shell (needs Claude Code ≥ 2.1.139; on an older one, `sepad install --shell-form`)")
	}
	for b := range bins {
		if fi, err := os.Stat(b); err != nil || fi.Mode()&0o111 == 0 {
			d.fail("the hook runs "+b+", which is not an executable file", "reinstall sepad, then run `sepad install` again so the settings name the new binary")
		} else {
			d.ok("the hook's binary %s exists", b)
		}
	}
}

// checkFiles checks that the state directory and files exist with safe
// modes and can be written.
func (d *doctor) checkFiles(home string) {
	fi, err := os.Stat(home)
	if err != nil {
		d.fail("state directory "+home+" does not exist", "it is created by the first hook call or by `sepad run`")
		return
	}
	if fi.Mode().Perm()&0o077 != 0 {
		d.fail(fmt.Sprintf("%s is %v: tool outputs in the spool can hold secrets", home, fi.Mode().Perm()), "chmod 700 "+home)
	} else {
		d.ok("state directory %s is private (%v)", home, fi.Mode().Perm())
	}
	for _, f := range []string{spool.Path(home), filepath.Join(home, "sepa.db")} {
		fi, err := os.Stat(f)
		if errors.Is(err, os.ErrNotExist) {
			d.warn(f+" does not exist yet", "it appears with the first hook event (spool) or the first `sepad run` (database)")
			continue
		}
		if err != nil {
			d.fail(err.Error(), "check the path and its permissions")
			continue
		}
		if fi.Mode().Perm()&0o077 != 0 {
			d.fail(fmt.Sprintf("%s is %v", f, fi.Mode().Perm()), "chmod 600 "+f)
			continue
		}
		if fh, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND, 0); err != nil {
			d.fail(f+" is not writable: "+err.Error(), "fix its owner or permissions")
		} else {
			fh.Close()
			d.ok("%s is private and writable", f)
		}
	}
}

// checkDaemon asks the daemon's socket for /healthz.
func (d *doctor) checkDaemon(home string) bool {
	sock := api.SocketPath(home)
	c := api.SocketClient(sock, 2*time.Second)
	resp, err := c.Get("http://sepad/healthz")
	if err != nil {
		d.fail("no daemon answers on "+sock, "start it: `sepad run` (or `sepad install --service` to run it at login)")
		return false
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		d.fail(fmt.Sprintf("the daemon answered %s", resp.Status), "look at its log (journalctl --user -u sepad)")
		return false
	}
	d.ok("the daemon answers on %s", sock)
	return true
}

// checkVersion infers what the Claude Code version lets sepad see from the
// fields of the newest payloads in the spool.
func (d *doctor) checkVersion(home string) {
	f, err := os.Open(spool.Path(home))
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4<<20 {
		f.Seek(fi.Size()-4<<20, io.SeekStart)
	}
	var n int
	var failures, lastMsg, duration, stops, posts, starts, manifests, loaded bool
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var p struct {
			Event    string          `json:"hook_event_name"`
			LastMsg  *string         `json:"last_assistant_message"`
			Duration json.RawMessage `json:"duration_ms"`
			Sepa     struct {
				Instructions json.RawMessage `json:"instructions"`
			} `json:"sepa"`
		}
		if json.Unmarshal(sc.Bytes(), &p) != nil {
			continue
		}
		n++
		switch p.Event {
		case "PostToolUseFailure":
			failures = true
		case "Stop", "SubagentStop":
			stops = true
			lastMsg = lastMsg || p.LastMsg != nil
		case "PostToolUse":
			posts = true
			duration = duration || len(p.Duration) > 0
		case "SessionStart":
			starts = true
			manifests = manifests || len(p.Sepa.Instructions) > 0
		case "InstructionsLoaded":
			loaded = true
		}
	}
	if n == 0 {
		d.warn("no events in the spool yet", "use Claude Code in a project with the hook installed, then run `sepad doctor` again")
		return
	}
	if failures {
		d.ok("PostToolUseFailure events seen: failed tool calls are visible (Claude Code ≥ 2.1.15)")
	} else {
		d.warn("no PostToolUseFailure event seen: before Claude Code 2.1.15 a failed call shows only as a PreToolUse without a post event",
			"update Claude Code (`claude update`); until then failures are inferred from unanswered PreToolUse events")
	}
	if stops && !lastMsg {
		d.warn("Stop events carry no final answer (last_assistant_message, Claude Code < 2.1.47): output quality and structure are not scored",
			"update Claude Code; scores are renormalised over the other signals meanwhile")
	} else if lastMsg {
		d.ok("final answers are visible (last_assistant_message, Claude Code ≥ 2.1.47)")
	}
	switch {
	case manifests:
		d.ok("SessionStart lists the instruction files loaded (CLAUDE.md, rules, imports): each session's CLAUDE.md version is known")
	case starts:
		d.warn("SessionStart events list no instruction files: the hook that wrote them is older than this sepad, so _session executions take the last version seen",
			"run `sepad install` again, so Claude Code runs this sepad's hook")
	}
	if starts && !loaded {
		d.warn("no InstructionsLoaded event seen: CLAUDE.md files and rules loaded during a turn are not recorded with their execution",
			"run `sepad install` again (it subscribes to InstructionsLoaded)")
	}
	if posts && !duration {
		d.warn("PostToolUse events carry no duration_ms (Claude Code < 2.1.119): durations come from the hook's receive times",
			"nothing to do; update Claude Code for tool-time durations")
	} else if duration {
		d.ok("tool durations are visible (duration_ms, Claude Code ≥ 2.1.119)")
	}
}

// checkLag compares the spool's size with the committed offset.
func (d *doctor) checkLag(home string, daemonUp bool) {
	fi, err := os.Stat(spool.Path(home))
	if err != nil {
		return
	}
	if daemonUp {
		d.ok("the daemon follows the spool (%d bytes); `sepad status` shows the lag", fi.Size())
		return
	}
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{ReadOnly: true, LockTimeout: 200 * time.Millisecond})
	if err != nil {
		d.warn("cannot read the database: "+err.Error(), "start the daemon: `sepad run`")
		return
	}
	defer db.Close()
	offs, _ := db.Offsets()
	for _, o := range offs {
		if o.File == spool.Path(home) {
			if lag := fi.Size() - o.Offset; lag > 0 {
				d.warn(fmt.Sprintf("%d bytes of the spool are not in the store yet", lag), "start the daemon: `sepad run`")
			} else {
				d.ok("the store has everything in the spool")
			}
			return
		}
	}
	d.warn("the store has not read the spool yet", "start the daemon: `sepad run`")
}
