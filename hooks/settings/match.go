package settings

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// Found is one of sepad's handlers in a settings file.
type Found struct {
	// Event is the hook event it is registered for.
	Event string
	// Transport is "command" or "http".
	Transport string
	// Program is the binary a command handler runs ("" for http).
	Program string
	// Exec is set for a command handler in exec form (no shell).
	Exec bool
	// URL and Headers are an http handler's endpoint and headers (values
	// as written, $NAME not substituted); AllowedEnvVars its variables.
	URL            string
	Headers        map[string]string
	AllowedEnvVars []string
}

// Find lists sepad's handlers in a settings file, in file order; a file
// that is not valid JSON, or whose hooks are not shaped as Claude Code
// reads them, is ErrUnusable.
func Find(data []byte) ([]Found, error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, err
	}
	var out []Found
	hooks := doc.root.get("hooks")
	if hooks == nil || hooks.kind != '{' {
		return nil, nil
	}
	for _, m := range hooks.members {
		for _, g := range m.val.elems {
			for _, h := range g.get("hooks").elemsOrNil() {
				if !isSepadHandler(h) {
					continue
				}
				f := Found{Event: m.key, Transport: h.str("type")}
				switch f.Transport {
				case "command":
					f.Program, _, _ = commandWords(h)
					f.Exec = h.get("args") != nil
				case "http":
					f.URL = h.str("url")
					if hd := h.get("headers"); hd != nil && hd.kind == '{' {
						f.Headers = map[string]string{}
						for _, m := range hd.members {
							f.Headers[m.key] = hd.str(m.key)
						}
					}
					for _, e := range h.get("allowedEnvVars").elemsOrNil() {
						var v string
						if e.kind == 0 && json.Unmarshal(e.raw, &v) == nil {
							f.AllowedEnvVars = append(f.AllowedEnvVars, v)
						}
					}
				}
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// isSepadHandler recognises a handler sepad installed: a command whose
// program is named sepad or sepad-hook (or with .exe) and whose first
// argument is "hook", in shell form (`/path/sepad hook`) or exec form
// ("command": "/path/sepad", "args": ["hook", ...]), or an http handler
// posting to a loopback /v1/hook URL.
func isSepadHandler(h *jnode) bool {
	if h.kind != '{' {
		return false
	}
	switch h.str("type") {
	case "command":
		prog, args, ok := commandWords(h)
		if !ok || len(args) < 1 || args[0] != "hook" {
			return false
		}
		base := prog
		if i := strings.LastIndexAny(base, `/\`); i >= 0 {
			base = base[i+1:]
		}
		return base == "sepad" || base == "sepad-hook" || strings.EqualFold(base, "sepad.exe") || strings.EqualFold(base, "sepad-hook.exe")
	case "http":
		return isSepadURL(h.str("url"))
	}
	return false
}

// isSepadURL accepts http://HOST[:PORT]/v1/hook with a loopback HOST
// (127.0.0.1, localhost, [::1]). It is parsed by hand to keep net/url (and
// its init) out of the hook binary's dependencies.
func isSepadURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		return false
	}
	host, path, _ := strings.Cut(rest, "/")
	if "/"+path != "/v1/hook" {
		return false
	}
	if h, port, found := strings.Cut(host, "]:"); found && strings.HasPrefix(h, "[") {
		host = h + "]"
		if !digits(port) {
			return false
		}
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasPrefix(host, "[") {
		if !digits(host[i+1:]) {
			return false
		}
		host = host[:i]
	}
	switch host {
	case "127.0.0.1", "localhost", "[::1]":
		return true
	}
	return false
}

func digits(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// commandWords returns a command handler's program and arguments: the
// "command" and "args" of exec form (ok is false when "args" is not an
// array of strings), or the words of the shell-form command line.
func commandWords(h *jnode) (prog string, args []string, ok bool) {
	a := h.get("args")
	if a == nil {
		w := shellWords(h.str("command"))
		if len(w) == 0 {
			return "", nil, true
		}
		return w[0], w[1:], true
	}
	if a.kind != '[' {
		return "", nil, false
	}
	args = []string{}
	for _, e := range a.elems {
		var v string
		if e.kind != 0 || json.Unmarshal(e.raw, &v) != nil {
			return "", nil, false
		}
		args = append(args, v)
	}
	return h.str("command"), args, true
}

// sameHandler reports whether h is the handler want: same type, command,
// form (exec or shell), arguments and URL.
func sameHandler(h, want *jnode) bool {
	if h.str("type") != want.str("type") || h.str("command") != want.str("command") || h.str("url") != want.str("url") {
		return false
	}
	if !sameValue(h.get("headers"), want.get("headers")) || !sameValue(h.get("allowedEnvVars"), want.get("allowedEnvVars")) {
		return false
	}
	if (h.get("args") == nil) != (want.get("args") == nil) {
		return false
	}
	_, ha, _ := commandWords(h)
	_, wa, _ := commandWords(want)
	return slices.Equal(ha, wa)
}

// sameValue reports whether two JSON values (nil: absent) are equal.
func sameValue(a, b *jnode) bool {
	if a == nil || b == nil {
		return a == b
	}
	var va, vb any
	if json.Unmarshal(a.emit(nil, 0, ""), &va) != nil || json.Unmarshal(b.emit(nil, 0, ""), &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// customised reports whether h is a sepad command handler the user gave
// extra arguments (`sepad hook --home DIR`, or "args": ["hook", "--home",
// DIR]): Install keeps it as it is, in whichever form it is.
func customised(h, want *jnode) bool {
	if h.str("type") != "command" || want.str("type") != "command" {
		return false
	}
	_, args, _ := commandWords(h)
	return len(args) > 1
}

// shellWords splits a command line into words, honouring single and
// double quotes and backslashes the way sh does for simple commands.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
