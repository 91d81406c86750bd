// Package activation counts how a skill comes to run: chosen by the model
// from its description (the Skill tool), typed by the person (/name), or
// typed right after a turn that went without it (a missed activation), per
// version of the skill's description (docs/activation.md). It is pure, and
// none of it enters the 0-100 score.
package activation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/execution"
)

// Counts are a skill's activations over some of its executions.
type Counts struct {
	// Claude counts the executions the model invoked (the Skill tool).
	Claude int `json:"claude"`
	// User counts the executions the person typed; Missed those of them
	// typed right after a turn of the same session that went without
	// the skill.
	User   int `json:"user"`
	Missed int `json:"missed"`
}

// Add counts one execution, by its marks (execution.InvokedBy*); an
// execution no one is said to have invoked (a session's or an agent's,
// or one stored before the marks) is not counted.
func (c *Counts) Add(invokedBy string, missed bool) {
	switch invokedBy {
	case execution.InvokedByClaude:
		c.Claude++
	case execution.InvokedByUser:
		c.User++
		if missed {
			c.Missed++
		}
	}
}

// Plus returns the sum of c and o.
func (c Counts) Plus(o Counts) Counts {
	return Counts{Claude: c.Claude + o.Claude, User: c.User + o.User, Missed: c.Missed + o.Missed}
}

// Zero reports whether nothing was counted.
func (c Counts) Zero() bool { return c.Claude == 0 && c.User == 0 }

// Chances are the occasions on which the model could be seen to pick the
// skill or not: the times it did, and the times the person had to ask
// right after it did not.
func (c Counts) Chances() int { return c.Claude + c.Missed }

// Rate is the model's share of the chances (Claude / Chances), and false
// when there were none.
func (c Counts) Rate() (float64, bool) {
	n := c.Chances()
	if n == 0 {
		return 0, false
	}
	return float64(c.Claude) / float64(n), true
}

// Words says the counts in plain words: "the model used it 4 times on its
// own; the person typed it 3 times, 2 of them right after a turn without
// it (missed): the model picked it 4 of 6 times (67%)".
func (c Counts) Words() string {
	if c.Zero() {
		return "no invocation counted yet"
	}
	s := "the model never used it on its own"
	if c.Claude > 0 {
		s = fmt.Sprintf("the model used it %s on its own", times(c.Claude))
	}
	if c.User == 0 {
		s += "; the person never typed it"
	} else {
		s += fmt.Sprintf("; the person typed it %s", times(c.User))
		switch c.Missed {
		case 0:
			s += ", never right after a turn without it"
		case c.User:
			if c.User == 1 {
				s += ", right after a turn without it (missed)"
			} else {
				s += ", each right after a turn without it (missed)"
			}
		default:
			s += fmt.Sprintf(", %d of them right after a turn without it (missed)", c.Missed)
		}
	}
	if r, ok := c.Rate(); ok {
		s += fmt.Sprintf(": the model picked it %d of %d times (%.0f%%)", c.Claude, c.Chances(), 100*r)
	}
	return s
}

func times(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// Description returns the description in a prompt file's front matter,
// trimmed, and whether it has one. A front matter that is not YAML, or a
// description that is not text, has none.
func Description(content []byte) (string, bool) {
	fm, _, ok := evals.SplitFrontmatter(content)
	if !ok {
		return "", false
	}
	var m map[string]any
	if err := decodeYAML(fm, &m); err != nil {
		return "", false
	}
	switch d := m["description"].(type) {
	case string:
		d = strings.TrimSpace(d)
		return d, d != ""
	case nil:
		return "", false
	default:
		// A number or a list: Claude Code reads it as text.
		s := strings.TrimSpace(fmt.Sprint(d))
		return s, s != ""
	}
}

// NoDescription is DescriptionHash of a file without a description.
const NoDescription = "none"

// DescriptionHash names a version of a file's description: 12 hex digits
// of the SHA-256 of the text, or NoDescription.
func DescriptionHash(content []byte) string {
	d, ok := Description(content)
	if !ok {
		return NoDescription
	}
	h := sha256.Sum256([]byte(d))
	return hex.EncodeToString(h[:6])
}

// decodeYAML decodes a front matter; a panic in the decoder on hostile
// input becomes an error.
func decodeYAML(src []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML decoder failed: %v", r)
		}
	}()
	return yaml.Unmarshal(src, v)
}
