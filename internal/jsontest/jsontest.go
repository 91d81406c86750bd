// Package jsontest holds JSON helpers shared by tests of several packages.
package jsontest

import (
	"bytes"
	"encoding/json"
	"errors"
)

// TopKeys returns the member names of the top-level object of b, in
// order, so tests can check that a rewrite kept the key order. It returns
// nil when b is not a JSON object.
func TopKeys(b []byte) ([]string, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return keys, err
		}
		s, ok := k.(string)
		if !ok {
			return keys, errors.New("object key is not a string")
		}
		keys = append(keys, s)
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return keys, err
		}
	}
	return keys, nil
}
