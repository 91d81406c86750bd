package main

import (
	"encoding/json"
	"io"
	"net/url"
)

// pathArg escapes a skill argument as one URL path segment.
func pathArg(s string) string { return url.PathEscape(s) }

// view runs one query and prints its answer: the API's document with
// --json, else drawn by draw.
func view[T any](qf queryFlags, stdout io.Writer, path string, draw func(io.Writer, *T) error) error {
	var doc T
	body, err := fetch(qf, path, &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	return draw(stdout, &doc)
}

// drawn adapts a drawing that cannot fail to view.
func drawn[T any](draw func(io.Writer, *T)) func(io.Writer, *T) error {
	return func(w io.Writer, doc *T) error {
		draw(w, doc)
		return nil
	}
}

// printIndented prints v as indented JSON.
func printIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
