package main

import (
	"fmt"
	"github.com/sepad/sepad/render"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/internal/claudedir"
	"github.com/sepad/sepad/transcript"
)

// prices converts the configuration's price table.
func prices(cfg *config.Config) transcript.Prices {
	p := transcript.Prices{}
	for name, m := range cfg.Pricing.Models {
		p[name] = transcript.Price{Input: m.Input, Output: m.Output, CacheRead: m.CacheRead, CacheCreation: m.CacheWrite}
	}
	return p
}

// transcriptTracker reads the transcripts below the user's Claude Code
// directory (userHome/.claude for the demo's own user, else
// $CLAUDE_CONFIG_DIR or ~/.claude); nil when collector.transcripts is off.
func transcriptTracker(cfg *config.Config, userHome string) *transcript.Tracker {
	if !cfg.Collector.Transcripts {
		return nil
	}
	dir := ""
	if userHome != "" {
		dir = filepath.Join(userHome, ".claude")
	} else {
		home, _ := os.UserHomeDir()
		dir = claudedir.From(os.Getenv, home)
	}
	return &transcript.Tracker{ClaudeDir: dir, Prices: prices(cfg)}
}

// scoreTracker is the tracker of `sepad score`: the same reading as the
// daemon's, without waiting for a lagging transcript.
func scoreTracker(cfg *config.Config) *transcript.Tracker {
	tr := transcriptTracker(cfg, "")
	if tr != nil {
		tr.Wait = time.Nanosecond
	}
	return tr
}

// fmtUsage is one execution's tokens by kind, models and cost.
func fmtUsage(u *execution.Usage, reason string) string {
	if u == nil {
		if reason == "" {
			return "-"
		}
		return "- (" + reason + ")"
	}
	cost := execCost(u)
	if !u.CostKnown {
		cost += " (a model has no price)"
	}
	return fmt.Sprintf("%s tokens: %d input, %d output, %d cache read, %d cache write (cache hit %.0f%%); %d messages, %s; %s",
		fmtCount(float64(u.Tokens())), u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens,
		u.CacheHitRate()*100, u.Messages, orDash(strings.Join(u.Models, ", ")), cost)
}

// execCost is one execution's cost: render.PriceUnknown when a model it
// used has no price, as every view says it.
func execCost(u *execution.Usage) string {
	unknown := 0
	if !u.CostKnown {
		unknown = 1
	}
	return render.Cost(u.CostUSD(), unknown, 1)
}
