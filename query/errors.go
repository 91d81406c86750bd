package query

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sepad/sepad/record"
)

// maxSuggestions bounds the names an unknown-skill error lists.
const maxSuggestions = 10

// unknownSkill is the error for a skill argument that names nothing: it
// lists the known skill names, those that contain the argument (or that
// it contains) first, so a typo or a partial name finds its skill.
func unknownSkill(arg string, all []record.Skill) error {
	if len(all) == 0 {
		return &NotFoundError{Msg: fmt.Sprintf("no skill named %q: sepad has recorded no skill yet", arg)}
	}
	seen := map[string]bool{}
	var near, rest []string
	low := strings.ToLower(arg)
	for _, s := range all {
		name := s.Display()
		if seen[name] {
			continue
		}
		seen[name] = true
		n := strings.ToLower(name)
		if n != "" && (strings.Contains(n, low) || strings.Contains(low, n)) {
			near = append(near, name)
		} else {
			rest = append(rest, name)
		}
	}
	sort.Strings(near)
	sort.Strings(rest)
	names := append(near, rest...)
	more := ""
	if len(names) > maxSuggestions {
		more = fmt.Sprintf(" and %d more (sepad grades lists them)", len(names)-maxSuggestions)
		names = names[:maxSuggestions]
	}
	return &NotFoundError{Msg: fmt.Sprintf("no skill named %q; known skills: %s%s", arg, strings.Join(names, ", "), more)}
}
