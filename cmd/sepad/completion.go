package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sepad/sepad/evolve"
)

func init() {
	register("completion", "print a shell completion script: bash, zsh or fish", runCompletion)
}

// skillCommands take a SKILL as first argument: their completion offers
// the known skill names (`sepad completion --skills`, through the daemon
// or the database).
var skillCommands = []string{"accept", "decisions", "diff", "evolve", "forget", "grades", "history", "pin", "propose", "reject", "rollback", "show", "strategies", "unpin", "validity", "versions"}

// runCompletion is `sepad completion bash|zsh|fish`, and `sepad completion
// --skills` (the skill names, one per line, for the scripts).
func runCompletion(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", stderr)
	var qf queryFlags
	qf.add(fs)
	skills := fs.Bool("skills", false, "print the known skill names, one per line (the scripts call this)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if qf.json {
		return usageErrorf("--json does not apply: completion prints a shell script (--skills: the skill names, one per line)")
	}
	if *skills {
		body, err := fetch(qf, "/v1/skills", nil)
		if err != nil {
			return err
		}
		doc, err := decodeGradeTable(body) // a tab press waits for it
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, r := range doc.Grades {
			if !seen[r.Skill] {
				seen[r.Skill] = true
				fmt.Fprintln(stdout, r.Skill)
			}
		}
		return nil
	}
	if len(pos) != 1 {
		return usageErrorf("completion takes one SHELL: bash, zsh or fish")
	}
	cmds, flags := commandFlags()
	switch pos[0] {
	case "bash":
		return bashCompletion(stdout, cmds, flags, false)
	case "zsh":
		return bashCompletion(stdout, cmds, flags, true)
	case "fish":
		return fishCompletion(stdout, cmds, flags)
	}
	return usageErrorf("no shell %q; want bash, zsh or fish", pos[0])
}

// commandFlags returns the commands and each one's flags (--name), read
// from the flag sets the commands define (as `sepad help` does).
func commandFlags() ([]string, map[string][]string) {
	var cmds []string
	flags := map[string][]string{}
	for name, c := range commands {
		cmds = append(cmds, name)
		if name == "hook" || name == "help" || name == "completion" {
			continue
		}
		err := c.run([]string{"--help"}, strings.NewReader(""), io.Discard, io.Discard)
		var hr *helpRequest
		if errors.As(err, &hr) {
			hr.fs.VisitAll(func(f *flag.Flag) { flags[name] = append(flags[name], "--"+f.Name) })
		}
	}
	flags["completion"] = []string{"--skills", "--home"}
	sort.Strings(cmds)
	return cmds, flags
}

func bashCompletion(w io.Writer, cmds []string, flags map[string][]string, zsh bool) error {
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
	fmt.Fprintf(&b, "  case \"$cmd\" in\n    %s)\n", strings.Join(skillCommands, "|"))
	b.WriteString("      if [ \"$COMP_CWORD\" -eq 2 ]; then\n        COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" completion --skills 2>/dev/null)\" -- \"$cur\"))\n        return\n      fi ;;\n")
	b.WriteString("    label) COMPREPLY=($(compgen -W \"last success failure\" -- \"$cur\")); return ;;\n")
	fmt.Fprintf(&b, "    completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n    help) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n  esac\n", strings.Join(cmds, " "))
	b.WriteString("  COMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -F _sepad sepad\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fishCompletion(w io.Writer, cmds []string, flags map[string][]string) error {
	var b strings.Builder
	b.WriteString("# sepad completion for fish; load with: sepad completion fish | source\n")
	b.WriteString("complete -c sepad -f\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c sepad -n __fish_use_subcommand -a %s -d %s\n", c, fishQuote(commands[c].summary))
		for _, f := range flags[c] {
			fmt.Fprintf(&b, "complete -c sepad -n '__fish_seen_subcommand_from %s' -l %s\n", c, strings.TrimPrefix(f, "--"))
		}
	}
	fmt.Fprintf(&b, "complete -c sepad -n '__fish_seen_subcommand_from %s' -a '(sepad completion --skills 2>/dev/null)'\n", strings.Join(skillCommands, " "))
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
