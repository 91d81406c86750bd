package jsontest

import (
	"slices"
	"testing"
)

func TestTopKeys(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{`{"b":1,"a":{"z":[1,2]},"c":"x"}`, []string{"b", "a", "c"}, false},
		{`{}`, nil, false},
		{`[1,2]`, nil, false},
		{`"text"`, nil, false},
		{``, nil, false},
		{`{"a":1,"b":}`, []string{"a", "b"}, true},
	} {
		got, err := TopKeys([]byte(tc.in))
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("TopKeys(%s) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}
