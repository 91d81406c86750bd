package config

import (
	"errors"
	"strings"
	"testing"
)

func TestPricingDefaultsAndOverride(t *testing.T) {
	def, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if !def.Collector.Transcripts {
		t.Error("collector.transcripts is off by default")
	}
	if def.Pricing.Taken == "" || def.Pricing.Models["claude-sonnet-4-5"] != (ModelPrice{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}) {
		t.Fatalf("defaults: %+v", def.Pricing)
	}
	c, err := Parse("user.yaml", []byte("pricing:\n  models:\n    claude-sonnet-4-5:\n      input: 2.5\n    my-model: {input: 1, output: 2}\n"), def)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Pricing.Models["claude-sonnet-4-5"]; got != (ModelPrice{Input: 2.5, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}) {
		t.Errorf("one field overridden: %+v", got)
	}
	if c.Pricing.Models["my-model"].Output != 2 || c.Pricing.Models["claude-haiku-4-5"].Input != 1 {
		t.Errorf("added model or kept defaults: %+v", c.Pricing.Models)
	}
	if def.Pricing.Models["claude-sonnet-4-5"].Input != 3 || len(def.Pricing.Models) == len(c.Pricing.Models) {
		t.Error("the defaults were changed by a user file")
	}
}

func TestPricingErrorsLocated(t *testing.T) {
	def, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, want string }{
		{"pricing:\n  models:\n    m:\n      input: -1\n", "user.yaml:4: key pricing.models.m.input: must be a price"},
		{"pricing:\n  models:\n    m:\n      output: lots\n", "user.yaml:4: key pricing.models.m.output:"},
		{"pricing:\n  models:\n    m:\n      cache_hit: 1\n", "user.yaml:4: key pricing.models.m.cache_hit: unknown key"},
		{"pricing:\n  taken: yesterday\n", "user.yaml:2: key pricing.taken: \"yesterday\" is not a date"},
	}
	for _, c := range cases {
		_, err := Parse("user.yaml", []byte(c.file), def)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want prefix %q", c.file, err, c.want)
		}
	}
}
