package settings

import (
	"errors"
	"fmt"
	"sort"
)

// MergeHooks returns data with sepad's handler present once for every
// event in Events, and the events it changed. An existing sepad handler is
// updated in place (a moved binary, another transport) unless it is a
// command with extra arguments, which the user owns and which is kept;
// further sepad handlers in the same event are removed (each would record
// the event again); missing ones are added as a new matcher group at the
// end of the event's array. Everything
// else is kept byte for byte where the enclosing object or array is not
// changed, and value for value (same order) where it is.
func MergeHooks(data []byte, spec HookSpec) ([]byte, []string, error) {
	want, err := spec.handler()
	if err != nil {
		return nil, nil, err
	}
	wantFor := map[string]*jnode{}
	if spec.SessionStart != nil {
		if spec.SessionStart.SessionStart != nil {
			return nil, nil, errors.New("a SessionStart spec has no SessionStart spec of its own")
		}
		if wantFor["SessionStart"], err = spec.SessionStart.handler(); err != nil {
			return nil, nil, err
		}
	}
	doc, err := parseSettings(data)
	if err != nil {
		return nil, nil, err
	}
	hooks := doc.root.get("hooks")
	if hooks == nil {
		hooks = &jnode{kind: '{'}
		doc.root.set("hooks", hooks)
	} else if hooks.kind != '{' {
		return nil, nil, fmt.Errorf("%w: \"hooks\" is not an object", ErrUnusable)
	}
	var changed []string
	for _, ev := range Events {
		arr := hooks.get(ev)
		if arr == nil {
			arr = &jnode{kind: '['}
			hooks.set(ev, arr)
		} else if arr.kind != '[' {
			return nil, nil, fmt.Errorf("%w: hooks.%s is not an array", ErrUnusable, ev)
		}
		w := want
		if wf := wantFor[ev]; wf != nil {
			w = wf
		}
		if mergeEvent(arr, ev, w) {
			changed = append(changed, ev)
			hooks.dirty, doc.root.dirty = true, true
		}
	}
	if len(changed) == 0 {
		return data, nil, nil
	}
	return doc.bytes(), changed, nil
}

// mergeEvent makes arr hold exactly one sepad handler, equal to want; it
// reports whether it changed arr.
func mergeEvent(arr *jnode, ev string, want *jnode) bool {
	found, changed := false, false
	for gi := 0; gi < len(arr.elems); gi++ {
		g := arr.elems[gi]
		hs := g.get("hooks")
		if g.kind != '{' || hs == nil || hs.kind != '[' {
			continue
		}
		for hi := 0; hi < len(hs.elems); hi++ {
			h := hs.elems[hi]
			if !isSepadHandler(h) {
				continue
			}
			switch {
			case !found && (sameHandler(h, want) || customised(h, want)):
				found = true
			case !found:
				hs.elems[hi] = want.clone()
				found = true
				hs.dirty, g.dirty, changed = true, true, true
			default: // a duplicate: Claude Code would run it twice
				hs.elems = append(hs.elems[:hi], hs.elems[hi+1:]...)
				hi--
				hs.dirty, g.dirty, changed = true, true, true
			}
		}
	}
	if !found {
		g := &jnode{kind: '{', dirty: true}
		if toolEvents[ev] {
			g.set("matcher", str("*"))
		}
		g.set("hooks", &jnode{kind: '[', dirty: true, elems: []*jnode{want.clone()}})
		arr.elems = append(arr.elems, g)
		changed = true
	}
	if changed {
		arr.dirty = true
	}
	return changed
}

// RemoveHooks returns data without sepad's handlers, and the events it
// changed. orig is the file before the first install (nil if it did not
// exist) when haveOrig; containers emptied by the removal are dropped
// unless orig had them.
func RemoveHooks(data, orig []byte, haveOrig bool) ([]byte, []string, error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, nil, err
	}
	var pre *jnode // the original root, when known
	if haveOrig && orig != nil {
		if d, err := parseSettings(orig); err == nil {
			pre = d.root
		}
	}
	existed := func(keys ...string) bool {
		if !haveOrig {
			return false
		}
		n := pre
		for _, k := range keys {
			if n == nil {
				return false
			}
			n = n.get(k)
		}
		return n != nil
	}
	hooks := doc.root.get("hooks")
	if hooks == nil || hooks.kind != '{' {
		return data, nil, nil
	}
	var changed []string
	for mi := 0; mi < len(hooks.members); mi++ {
		ev, arr := hooks.members[mi].key, hooks.members[mi].val
		if arr.kind != '[' {
			continue
		}
		removed := false
		for gi := 0; gi < len(arr.elems); gi++ {
			g := arr.elems[gi]
			hs := g.get("hooks")
			if g.kind != '{' || hs == nil || hs.kind != '[' {
				continue
			}
			n := len(hs.elems)
			kept := hs.elems[:0:0]
			for _, h := range hs.elems {
				if !isSepadHandler(h) {
					kept = append(kept, h)
				}
			}
			if len(kept) == n {
				continue
			}
			removed = true
			hs.elems, hs.dirty, g.dirty = kept, true, true
			if len(kept) == 0 && g.onlyKeys("matcher", "hooks") {
				arr.elems = append(arr.elems[:gi], arr.elems[gi+1:]...)
				gi--
			}
		}
		if !removed {
			continue
		}
		changed = append(changed, ev)
		arr.dirty, hooks.dirty, doc.root.dirty = true, true, true
		if len(arr.elems) == 0 && !existed("hooks", ev) {
			hooks.members = append(hooks.members[:mi], hooks.members[mi+1:]...)
			mi--
		}
	}
	if len(changed) == 0 {
		return data, nil, nil
	}
	if len(hooks.members) == 0 && !existed("hooks") {
		doc.root.del("hooks")
	}
	return doc.bytes(), changed, nil
}

func (s HookSpec) handler() (*jnode, error) {
	h := &jnode{kind: '{', dirty: true}
	switch s.Transport {
	case "", "command":
		if s.Command == "" {
			return nil, errors.New("no command for the command transport")
		}
		h.set("type", str("command"))
		h.set("command", str(s.Command))
		if s.Args != nil {
			args := &jnode{kind: '[', dirty: true}
			for _, a := range s.Args {
				args.elems = append(args.elems, str(a))
			}
			h.set("args", args)
		}
	case "http":
		if !isSepadURL(s.URL) {
			return nil, fmt.Errorf("url %q: want http://127.0.0.1:PORT/v1/hook (loopback only)", s.URL)
		}
		h.set("type", str("http"))
		h.set("url", str(s.URL))
		if len(s.Headers) > 0 {
			hd := &jnode{kind: '{', dirty: true}
			keys := make([]string, 0, len(s.Headers))
			for k := range s.Headers {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				hd.set(k, str(s.Headers[k]))
			}
			h.set("headers", hd)
		}
		if len(s.AllowedEnvVars) > 0 {
			ev := &jnode{kind: '[', dirty: true}
			for _, v := range s.AllowedEnvVars {
				ev.elems = append(ev.elems, str(v))
			}
			h.set("allowedEnvVars", ev)
		}
	default:
		return nil, fmt.Errorf("unknown transport %q (want command or http)", s.Transport)
	}
	h.set("timeout", &jnode{raw: []byte(fmt.Sprint(hookTimeout))})
	return h, nil
}
