package scoring

import (
	"os"
	"path/filepath"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/transcript"
)

// Prices converts the configuration's price table.
func Prices(cfg *config.Config) transcript.Prices {
	p := transcript.Prices{}
	for name, m := range cfg.Pricing.Models {
		p[name] = transcript.Price{Input: m.Input, Output: m.Output, CacheRead: m.CacheRead, CacheCreation: m.CacheWrite}
	}
	return p
}

// Tracker reads the transcripts below the user's Claude Code directory
// (userHome/.claude for the demo's own user, else $CLAUDE_CONFIG_DIR or
// ~/.claude) before an execution is scored; nil when
// collector.transcripts is off.
func Tracker(cfg *config.Config, userHome string) *transcript.Tracker {
	if !cfg.Collector.Transcripts {
		return nil
	}
	dir := ""
	if userHome != "" {
		dir = filepath.Join(userHome, ".claude")
	} else {
		home, _ := os.UserHomeDir()
		dir = prompt.ConfigDirFrom(os.Getenv, home)
	}
	return &transcript.Tracker{ClaudeDir: dir, Prices: Prices(cfg)}
}

// OfflineTracker is the tracker of `sepad score`: the same reading as the
// daemon's, without waiting for a lagging transcript.
func OfflineTracker(cfg *config.Config) *transcript.Tracker {
	tr := Tracker(cfg, "")
	if tr != nil {
		tr.Wait = time.Nanosecond
	}
	return tr
}
