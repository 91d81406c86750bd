package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/query"
)

// SkillCommands take a SKILL as first argument: their completion offers
// the known skill names (`sepad completion --skills`, through the daemon
// or the database).
var SkillCommands = []string{"accept", "decisions", "diff", "evolve", "forget", "grades", "history", "pin", "propose", "reject", "rollback", "show", "strategies", "unpin", "validity", "versions"}

// Completion is what the shell completion scripts offer: the commands
// with their summaries and each one's flags (--name).
type Completion struct {
	Commands  []string
	Summaries map[string]string
	Flags     map[string][]string
}

// Bash writes the bash completion script (zsh: the same through
// bashcompinit).
func (cp Completion) Bash(w io.Writer, zsh bool) error {
	cmds, flags := cp.Commands, cp.Flags
	var b strings.Builder
	b.WriteString("# sepad completion for bash; load with: source <(sepad completion bash)\n")
	if zsh {
		b.Reset()
		b.WriteString("# sepad completion for zsh; load with: source <(sepad completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n")
	}
	b.WriteString("_sepad() {\n  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd=\"${COMP_WORDS[1]}\"\n")
	fmt.Fprintf(&b, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n    return\n  fi\n", strings.Join(cmds, " "))
	fmt.Fprintf(&b, "  if [ \"$cmd\" = evolve ] && [ \"${COMP_WORDS[COMP_CWORD-1]}\" = --strategy ]; then\n    COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n    return\n  fi\n", strings.Join(evolve.Names(), " "))
	b.WriteString("  if [[ \"$cur\" == -* ]]; then\n    case \"$cmd\" in\n")
	for _, c := range cmds {
		if len(flags[c]) > 0 {
			fmt.Fprintf(&b, "      %s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")) ;;\n", c, strings.Join(flags[c], " "))
		}
	}
	b.WriteString("    esac\n    return\n  fi\n")
	fmt.Fprintf(&b, "  case \"$cmd\" in\n    %s)\n", strings.Join(SkillCommands, "|"))
	b.WriteString("      if [ \"$COMP_CWORD\" -eq 2 ]; then\n        COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" completion --skills 2>/dev/null)\" -- \"$cur\"))\n        return\n      fi ;;\n")
	b.WriteString("    label) COMPREPLY=($(compgen -W \"last success failure\" -- \"$cur\")); return ;;\n")
	fmt.Fprintf(&b, "    completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n    help) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n  esac\n", strings.Join(cmds, " "))
	b.WriteString("  COMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -F _sepad sepad\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Fish writes the fish completion script.
func (cp Completion) Fish(w io.Writer) error {
	cmds, flags := cp.Commands, cp.Flags
	var b strings.Builder
	b.WriteString("# sepad completion for fish; load with: sepad completion fish | source\n")
	b.WriteString("complete -c sepad -f\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c sepad -n __fish_use_subcommand -a %s -d %s\n", c, fishQuote(cp.Summaries[c]))
		for _, f := range flags[c] {
			fmt.Fprintf(&b, "complete -c sepad -n '__fish_seen_subcommand_from %s' -l %s\n", c, strings.TrimPrefix(f, "--"))
		}
	}
	fmt.Fprintf(&b, "complete -c sepad -n '__fish_seen_subcommand_from %s' -a '(sepad completion --skills 2>/dev/null)'\n", strings.Join(SkillCommands, " "))
	b.WriteString("complete -c sepad -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	fmt.Fprintf(&b, "complete -c sepad -n '__fish_seen_subcommand_from evolve' -l strategy -xa '%s'\n", strings.Join(evolve.Names(), " "))
	b.WriteString("complete -c sepad -n '__fish_seen_subcommand_from label' -a 'last success failure'\n")
	fmt.Fprintf(&b, "complete -c sepad -n '__fish_seen_subcommand_from help' -a '%s'\n", strings.Join(cmds, " "))
	b.WriteString("complete -c sepad -n '__fish_seen_subcommand_from score propose' -F\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// SkillNames prints the names of the skills graded in doc, each once, one
// a line: what the completion scripts offer for SKILL.
func SkillNames(w io.Writer, doc *query.Grades) {
	seen := map[string]bool{}
	for _, r := range doc.Grades {
		if name := query.DisplayName(r.Skill); !seen[name] {
			seen[name] = true
			fmt.Fprintln(w, name)
		}
	}
}
