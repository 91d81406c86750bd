package query

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sepad/sepad/store"
)

// maxSuggestions bounds the names an unknown-skill error lists.
const maxSuggestions = 10

// unknownSkill is the error for a skill argument that names nothing: it
// lists the known skill names, those that contain the argument (or that
// it contains) first, so a typo or a partial name finds its skill.
func unknownSkill(arg string, all []store.Skill) error {
	if len(all) == 0 {
		return &NotFoundError{Msg: fmt.Sprintf("no skill named %q: sepad has recorded no skill yet", arg)}
	}
	seen := map[string]bool{}
	var near, rest []string
	low := strings.ToLower(arg)
	for _, s := range all {
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		n := strings.ToLower(s.Name)
		if n != "" && (strings.Contains(n, low) || strings.Contains(low, n)) {
			near = append(near, s.Name)
		} else {
			rest = append(rest, s.Name)
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
