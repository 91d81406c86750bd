package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// jnode is a JSON value. Values that are not changed keep their original
// bytes (raw) and are written back as they were; changed (dirty) objects
// and arrays are re-emitted with the file's indentation.
type jnode struct {
	kind    byte // '{', '[', or 0 for a scalar
	raw     []byte
	members []jmember
	elems   []*jnode
	dirty   bool
}

type jmember struct {
	key    string
	keyRaw []byte
	val    *jnode
}

type settingsDoc struct {
	lead, trail []byte // bytes before and after the top-level value
	indent      string // one indentation level; "" for compact files
	root        *jnode
}

func str(s string) *jnode {
	b, _ := json.Marshal(s)
	return &jnode{raw: b}
}

func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- { // the last duplicate wins, as in Claude Code
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

func (n *jnode) set(key string, v *jnode) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			n.members[i].val, n.dirty = v, true
			return
		}
	}
	kr, _ := json.Marshal(key)
	n.members = append(n.members, jmember{key: key, keyRaw: kr, val: v})
	n.dirty = true
}

func (n *jnode) del(key string) {
	for i := range n.members {
		if n.members[i].key == key {
			n.members = append(n.members[:i], n.members[i+1:]...)
			n.dirty = true
			return
		}
	}
}

func (n *jnode) str(key string) string {
	v := n.get(key)
	if v == nil || v.kind != 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.raw, &s) != nil {
		return ""
	}
	return s
}

func (n *jnode) onlyKeys(keys ...string) bool {
	for _, m := range n.members {
		ok := false
		for _, k := range keys {
			ok = ok || m.key == k
		}
		if !ok {
			return false
		}
	}
	return true
}

func (n *jnode) clone() *jnode {
	c := *n
	c.members = append([]jmember(nil), n.members...)
	c.elems = append([]*jnode(nil), n.elems...)
	return &c
}

func (d *settingsDoc) hasSepad() bool {
	hooks := d.root.get("hooks")
	if hooks == nil {
		return false
	}
	for _, m := range hooks.members {
		for _, g := range m.val.elems {
			for _, h := range g.get("hooks").elemsOrNil() {
				if isSepadHandler(h) {
					return true
				}
			}
		}
	}
	return false
}

func (n *jnode) elemsOrNil() []*jnode {
	if n == nil {
		return nil
	}
	return n.elems
}

func isEmptyObject(b []byte) bool {
	d, err := parseSettings(b)
	return err == nil && len(d.root.members) == 0
}

// parseSettings parses a settings file. Empty (or all white space) counts
// as an empty object. Errors wrap ErrUnusable and give line and column.
func parseSettings(data []byte) (*settingsDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &settingsDoc{root: &jnode{kind: '{', raw: []byte("{}")}, indent: "  ", trail: []byte("\n")}, nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, max(int(se.Offset)-1, 0))
			return nil, fmt.Errorf("%w: invalid JSON at line %d, column %d: %v", ErrUnusable, line, col, se)
		}
		return nil, fmt.Errorf("%w: invalid JSON: %v", ErrUnusable, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: the top level is not a JSON object", ErrUnusable)
	}
	t := treeBuilder{b: data, dec: json.NewDecoder(bytes.NewReader(data))}
	root, start, err := t.value()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnusable, err)
	}
	end := t.dec.InputOffset()
	return &settingsDoc{lead: data[:start], root: root, trail: data[end:], indent: detectIndent(data)}, nil
}

func lineCol(b []byte, off int) (line, col int) {
	if off > len(b) {
		off = len(b)
	}
	line = 1 + bytes.Count(b[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// detectIndent returns the white space starting the first indented line,
// which in a file written by Claude Code or an editor is one level; ""
// for a file on one line.
func detectIndent(b []byte) string {
	lines := bytes.Split(b, []byte{'\n'})
	if len(lines) < 2 {
		return ""
	}
	for _, l := range lines[1:] {
		t := bytes.TrimLeft(l, " \t")
		if len(t) < len(l) && len(bytes.TrimSpace(t)) > 0 {
			return string(l[:len(l)-len(t)])
		}
	}
	return "  "
}

// treeBuilder builds a jnode tree with encoding/json's Decoder: every
// node keeps its text as written (Decoder.InputOffset bounds each token),
// so what sepad does not change is written back byte for byte.
type treeBuilder struct {
	b   []byte
	dec *json.Decoder
}

// value reads the next value and returns its node and where its text
// starts.
func (t *treeBuilder) value() (*jnode, int64, error) {
	from := t.dec.InputOffset()
	tok, err := t.dec.Token()
	if err != nil {
		return nil, 0, err
	}
	end := t.dec.InputOffset()
	n := &jnode{}
	switch tok {
	case json.Delim('{'), json.Delim('['):
		n.kind = byte(tok.(json.Delim))
		start := end - 1
		for t.dec.More() {
			if n.kind == '[' {
				e, _, err := t.value()
				if err != nil {
					return nil, 0, err
				}
				n.elems = append(n.elems, e)
				continue
			}
			kf := t.dec.InputOffset()
			k, err := t.dec.Token()
			if err != nil {
				return nil, 0, err
			}
			m := jmember{key: k.(string), keyRaw: t.raw(kf)}
			if m.val, _, err = t.value(); err != nil {
				return nil, 0, err
			}
			n.members = append(n.members, m)
		}
		if _, err := t.dec.Token(); err != nil { // the closing '}' or ']'
			return nil, 0, err
		}
		n.raw = t.b[start:t.dec.InputOffset()]
		return n, start, nil
	}
	n.raw = t.raw(from)
	return n, end - int64(len(n.raw)), nil
}

// raw is the text of the token read since offset from, without the
// white space and separators before it.
func (t *treeBuilder) raw(from int64) []byte {
	return bytes.TrimLeft(t.b[from:t.dec.InputOffset()], " \t\r\n,:")
}

func (d *settingsDoc) bytes() []byte {
	var b []byte
	b = append(b, d.lead...)
	b = d.root.emit(b, 0, d.indent)
	trail := d.trail
	if len(trail) == 0 && d.indent != "" {
		trail = []byte("\n")
	}
	return append(b, trail...)
}

func (n *jnode) emit(b []byte, depth int, ind string) []byte {
	if !n.dirty && n.raw != nil {
		return append(b, n.raw...)
	}
	nl := func(b []byte, d int) []byte {
		if ind == "" {
			return b
		}
		b = append(b, '\n')
		for i := 0; i < d; i++ {
			b = append(b, ind...)
		}
		return b
	}
	switch n.kind {
	case '{':
		if len(n.members) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, m := range n.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = nl(b, depth+1)
			b = append(b, m.keyRaw...)
			b = append(b, ':')
			if ind != "" {
				b = append(b, ' ')
			}
			b = m.val.emit(b, depth+1, ind)
		}
		b = nl(b, depth)
		return append(b, '}')
	case '[':
		if len(n.elems) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = nl(b, depth+1)
			b = e.emit(b, depth+1, ind)
		}
		b = nl(b, depth)
		return append(b, ']')
	}
	return append(b, n.raw...)
}
