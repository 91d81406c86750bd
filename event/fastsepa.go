package event

// The sepa object (the hook's enrichment) in one pass; fast.go has the
// decoder it runs on.

// sepaNames are the members of the sepa object that fastSepa decodes.
var sepaNames = []string{"v", "ts", "skill", "skill_path", "skill_version", "project", "cut", "quarantine", "raw", "instructions"}

// fastSepa decodes the hook's enrichment object in one pass; false means
// "let encoding/json do it" (a cut list, an unusual shape or type).
func fastSepa(v []byte) (*Sepa, bool) {
	d := fastDecoder{b: v}
	if !d.eat('{') {
		return nil, false
	}
	sp := &Sepa{}
	d.ws()
	if d.eat('}') {
		return sp, d.end()
	}
	seen := map[string]bool{}
	for {
		d.ws()
		ks, ke, ok := d.str()
		if !ok {
			return nil, false
		}
		key := string(d.b[ks:ke])
		d.ws()
		if !d.eat(':') {
			return nil, false
		}
		d.ws()
		vs := d.i
		if !d.skip(1) {
			return nil, false
		}
		val := d.b[vs:d.i]
		if seen[key] {
			return nil, false // repeated key: leave merging rules to encoding/json
		}
		seen[key] = true
		if string(val) == "null" {
			if key == "cut" || !knownOrSkippable(key) {
				return nil, false
			}
		} else {
			str := func(dst *string) bool {
				s, ok := jsonString(val)
				*dst = s
				return ok
			}
			switch key {
			case "v":
				n := 0
				if len(val) == 0 || len(val) > 9 {
					return nil, false
				}
				for _, c := range val {
					if c < '0' || c > '9' {
						return nil, false
					}
					n = n*10 + int(c-'0')
				}
				sp.V = n
			case "ts":
				if sp.TS.UnmarshalJSON(val) != nil {
					return nil, false
				}
			case "skill":
				ok = str(&sp.Skill)
			case "skill_path":
				ok = str(&sp.SkillPath)
			case "skill_version":
				ok = str(&sp.SkillVersion)
			case "project":
				ok = str(&sp.Project)
			case "quarantine":
				ok = str(&sp.Quarantine)
			case "raw":
				ok = str(&sp.Raw)
			case "via":
				ok = str(&sp.Via)
			case "plugin":
				ok = str(&sp.Plugin)
			case "plugin_version":
				ok = str(&sp.PluginVersion)
			default:
				ok = knownOrSkippable(key) && !isSepaName(key)
			}
			if !ok {
				return nil, false
			}
		}
		d.ws()
		if d.eat(',') {
			continue
		}
		if d.eat('}') {
			return sp, d.end()
		}
		return nil, false
	}
}

func isSepaName(key string) bool {
	for _, f := range sepaNames {
		if f == key {
			return true
		}
	}
	return false
}

// knownOrSkippable reports whether key is a sepa field name, or a key that
// cannot match one under encoding/json's case folding.
func knownOrSkippable(key string) bool {
	if isSepaName(key) {
		return true
	}
	for i := 0; i < len(key); i++ {
		if key[i] >= 0x80 {
			return false
		}
	}
	for _, f := range sepaNames {
		if len(f) == len(key) && asciiEqualFold(f, key) {
			return false
		}
	}
	return true
}
