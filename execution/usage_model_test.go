package execution

import "testing"

func TestUsageModel(t *testing.T) {
	for _, c := range []struct {
		u    *Usage
		want string
	}{{nil, ""}, {&Usage{}, ""}, {&Usage{Models: []string{"opus"}}, "opus"}, {&Usage{Models: []string{"sonnet", "opus", "sonnet"}}, "opus+sonnet"}} {
		if got := c.u.Model(); got != c.want {
			t.Errorf("%+v: Model() = %q, want %q", c.u, got, c.want)
		}
	}
}
