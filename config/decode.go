package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// The decoder: YAML nodes onto the Config struct, refusing unknown keys
// and recording the line of every key, so that validation errors name file,
// line and key.

// decodeNode decodes n into v, refusing unknown keys, and records the line
// of every key for later validation errors.
func decodeNode(file string, n *yaml.Node, v reflect.Value, path string, lines map[string]int) error {
	if v.Kind() == reflect.Struct && v.Type() != reflect.TypeOf(time.Duration(0)) {
		if n.Kind != yaml.MappingNode {
			return &Error{File: file, Line: n.Line, Key: path, Msg: "expected a mapping of keys"}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := joinKey(path, k.Value)
			lines[key] = k.Line
			f, ok := fieldByTag(v, k.Value)
			if !ok {
				return &Error{File: file, Line: k.Line, Key: key, Msg: "unknown key" + suggest(v.Type(), k.Value)}
			}
			if err := decodeNode(file, val, f, key, lines); err != nil {
				return err
			}
		}
		return nil
	}
	if v.Kind() == reflect.Map {
		if n.Kind != yaml.MappingNode {
			return &Error{File: file, Line: n.Line, Key: path, Msg: "expected a mapping"}
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := joinKey(path, k.Value)
			lines[key] = k.Line
			elem := reflect.New(v.Type().Elem()).Elem()
			if old := v.MapIndex(reflect.ValueOf(k.Value)); old.IsValid() {
				elem.Set(old)
			}
			if err := decodeNode(file, val, elem, key, lines); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k.Value), elem)
		}
		return nil
	}
	if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Struct {
		// An optional mapping (skills.NAME.mutation.eval_gate): decoded
		// key by key like any mapping, into a fresh value.
		fresh := reflect.New(v.Type().Elem())
		if err := decodeNode(file, n, fresh.Elem(), path, lines); err != nil {
			return err
		}
		v.Set(fresh)
		return nil
	}
	fresh := reflect.New(v.Type())
	if err := n.Decode(fresh.Interface()); err != nil {
		return &Error{File: file, Line: n.Line, Key: path, Msg: typeMsg(err, v.Type())}
	}
	v.Set(fresh.Elem())
	return nil
}

func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func fieldByTag(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if tag == key && tag != "-" {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// Keys lists the yaml keys of a struct type, for suggestions and docs.
func keys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

func suggest(t reflect.Type, key string) string {
	return " (known keys: " + strings.Join(keys(t), ", ") + ")"
}

func typeMsg(err error, t reflect.Type) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "yaml:") {
		msg = msg[i+2:]
	}
	want := t.String()
	switch t {
	case reflect.TypeOf(time.Duration(0)):
		want = "a duration such as 30s or 2m"
	case reflect.TypeOf([]float64(nil)):
		want = "a list of numbers"
	case reflect.TypeOf([]string(nil)):
		want = "a list of strings"
	}
	return fmt.Sprintf("%s (want %s)", strings.TrimSpace(msg), want)
}

func yamlErrLine(err error) int {
	var line int
	s := err.Error()
	if i := strings.Index(s, "line "); i >= 0 {
		fmt.Sscanf(s[i:], "line %d", &line)
	}
	return line
}
