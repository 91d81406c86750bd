package config

import (
	"reflect"
	"slices"
	"strings"
)

// Changed lists the keys whose values differ between a and b, dotted as
// in the file (collector.idle_timeout), sorted. A map or a list is one
// key (pricing.models, mutation.extra_roots); a skill's own settings are
// skills.NAME.mutation, skills.NAME.checks and skills.NAME.verify. A reload uses it to say
// which settings need a restart.
func Changed(a, b *Config) []string {
	var out []string
	diff(reflect.ValueOf(*a), reflect.ValueOf(*b), "", &out)
	for _, name := range unionKeys(a.SkillMutation, b.SkillMutation) {
		if !reflect.DeepEqual(a.SkillMutation[name], b.SkillMutation[name]) {
			out = append(out, "skills."+name+".mutation")
		}
	}
	for _, name := range unionKeys(a.SkillVerify, b.SkillVerify) {
		if !reflect.DeepEqual(a.SkillVerify[name], b.SkillVerify[name]) {
			out = append(out, "skills."+name+".verify")
		}
	}
	for _, name := range unionKeys(a.SkillCheckDefs, b.SkillCheckDefs) {
		if !reflect.DeepEqual(a.SkillCheckDefs[name], b.SkillCheckDefs[name]) {
			out = append(out, "skills."+name+".checks")
		}
	}
	slices.Sort(out)
	return out
}

// diff walks the fields with a yaml name; structs are walked into,
// anything else is compared whole.
func diff(a, b reflect.Value, path string, out *[]string) {
	t := a.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := joinKey(path, name)
		fa, fb := a.Field(i), b.Field(i)
		if fa.Kind() == reflect.Struct {
			diff(fa, fb, key, out)
			continue
		}
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) && !bothEmpty(fa, fb) {
			*out = append(*out, key)
		}
	}
}

func unionKeys[V any](a, b map[string]V) []string {
	var ks []string
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// bothEmpty: a list or map left out and one written empty (`[]`, as
// `sepad config init` writes) are the same setting.
func bothEmpty(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice, reflect.Map:
		return a.Len() == 0 && b.Len() == 0
	}
	return false
}
