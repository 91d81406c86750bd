package evals

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/promptfile"
)

// Target is the prompt a suite run is recorded for: the skill's key and
// name as sepad's records know them, and its prompt file.
type Target struct {
	Key, Name, Path string
}

var (
	// ErrChanged: the prompt file changed while its suite ran, so the
	// result belongs to no one version.
	ErrChanged = errors.New("the prompt file changed during the eval: result not recorded")
	// ErrPartial is wrapped by the error about a suite run cut short (the
	// cost ceiling, a failed login): such a run says little about the
	// prompt, so it is shown, never recorded.
	ErrPartial = errors.New("the suite stopped early")
	// ErrStale: a result file older than the prompt file's last change,
	// whose version cannot be known (a result holds no content hash).
	ErrStale = errors.New("cannot tell which version it evaluated")
)

// ReadResult reads an aggregate-result.json to import (Import); a run cut
// short is refused with ErrPartial.
func ReadResult(file string) (*Evidence, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	ev, err := Parse(file, b)
	if err != nil {
		return nil, err
	}
	if ev.Partial {
		return nil, fmt.Errorf("%s: %w (%s): not recorded", file, ErrPartial, orDash(ev.PartialReason))
	}
	return ev, nil
}

// Import records ev, read from file (ReadResult), as evidence for t. The
// result holds no content hash, so the version is the prompt file's
// content now, and a file changed since the suite started is refused
// (ErrStale).
func Import(home string, ev *Evidence, file string, t Target, now time.Time) error {
	content, err := os.ReadFile(t.Path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(t.Path); err == nil && !ev.RanAt.IsZero() && fi.ModTime().After(ev.RanAt) {
		return fmt.Errorf("%s: %s changed at %s, after the suite started (%s): %w",
			file, t.Path, fi.ModTime().UTC().Format(time.RFC3339), ev.RanAt.Format(time.RFC3339), ErrStale)
	}
	abs, _ := filepath.Abs(file)
	ev.SkillKey, ev.Skill, ev.Version, ev.At, ev.Source, ev.File = t.Key, t.Name, promptfile.Hash(content), now.UTC(), "import", abs
	return Append(home, *ev)
}

// Record records ev, a suite run (RunSuite) on before, the prompt file's
// text when the run started, as evidence for that version of t, plugin
// its plugin unless the result names one. It refuses a prompt file that
// no longer holds before (ErrChanged) and a run cut short (ErrPartial).
func Record(home string, ev *Evidence, t Target, plugin string, before []byte, now time.Time) error {
	after, err := os.ReadFile(t.Path)
	if err != nil || promptfile.Hash(after) != promptfile.Hash(before) {
		return fmt.Errorf("%s: %w", t.Path, ErrChanged)
	}
	if ev.Partial {
		return fmt.Errorf("%w (%s): result not recorded", ErrPartial, orDash(ev.PartialReason))
	}
	ev.SkillKey, ev.Skill, ev.Version, ev.At, ev.Source = t.Key, t.Name, promptfile.Hash(before), now.UTC(), "sepad eval"
	if ev.Plugin == "" {
		ev.Plugin = plugin
	}
	return Append(home, *ev)
}

// KeepDir is where a run of name's suite started at now keeps claude's
// results and report: under the state directory, not in the private
// plugin's directory removed after the run.
func KeepDir(home, name string, now time.Time) string {
	safe := strings.NewReplacer("/", "_", ":", "_", "\\", "_").Replace(name)
	return filepath.Join(home, "eval-runs", safe+"-"+now.UTC().Format("20060102T150405Z"))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
