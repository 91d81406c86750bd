package doctor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/config"
)

// checkMutatorLogin: the default mutator runs claude inside the daemon,
// with the daemon's environment. A daemon a service manager started often
// has neither ANTHROPIC_API_KEY nor the HOME holding the person's login,
// and evolve then fails with Claude Code's "Not logged in". Where the
// daemon's environment can be read (/proc on Linux, same user), doctor
// says so before an evolve does.
func (d *doctor) checkMutatorLogin(home string, up bool) {
	if !up {
		return
	}
	if cfg, err := config.Load(config.Path("")); err != nil || len(cfg.Mutation.Mutator) > 0 {
		return // a command mutator brings its own credentials
	}
	st, err := client.Status(home)
	if err != nil || st.Daemon.PID <= 0 {
		return
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", st.Daemon.PID))
	if err != nil {
		return // not Linux, or not readable: nothing to say
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"} {
		if env[k] != "" {
			d.ok("the daemon's environment has %s: evolve's claude can log in", k)
			return
		}
	}
	dir := env["CLAUDE_CONFIG_DIR"]
	if dir == "" && env["HOME"] != "" {
		dir = filepath.Join(env["HOME"], ".claude")
	}
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, ".credentials.json")); err == nil {
			d.ok("the daemon's claude finds a login in %s", dir)
			return
		}
	}
	d.warn(fmt.Sprintf("the daemon (pid %d) runs evolve's claude with HOME=%s and no ANTHROPIC_API_KEY, and finds no Claude Code login there: evolve would fail with \"Not logged in\"", st.Daemon.PID, env["HOME"]),
		"put ANTHROPIC_API_KEY in the daemon's environment (the service unit's Environment= or EnvironmentFile=, `systemctl --user edit sepad`; or export it before `sepad run`), or log in once with that HOME (`claude`, then /login)")
}
