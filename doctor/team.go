package doctor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/daemon"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/team"
)

// checkTeam checks the team database when team.postgres is set: the
// password file's permissions, that it is reachable, its schema, and what
// the daemon's shipper last said (pending, lag, last error).
func (d *doctor) checkTeam(home string) {
	cfg, err := config.Load(config.Path(""))
	if err != nil || strings.TrimSpace(cfg.Team.Postgres) == "" {
		return // a bad file is the daemon's start-up error; no team: nothing to check
	}
	if pf := cfg.Team.PasswordFile; pf != "" {
		switch fi, err := os.Stat(pf); {
		case err != nil:
			d.fail(fmt.Sprintf("team.password_file: %v", err), "write the password on the file's first line, mode 0600")
		case fi.Mode().Perm()&0o077 != 0:
			d.fail(fmt.Sprintf("team.password_file %s is mode %o: others may read the password", pf, fi.Mode().Perm()), "chmod 600 "+pf)
		default:
			d.ok("team.password_file is private (mode %o)", fi.Mode().Perm())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := team.Connect(ctx, daemon.TeamConfig(cfg))
	if err != nil {
		d.fail(fmt.Sprintf("the team database is unreachable: %v", err),
			"check team.postgres and the password (PGPASSWORD, PGPASSFILE or team.password_file); meanwhile sepad grades locally and ships when it returns")
	} else {
		v, err := db.Schema(ctx)
		db.Close()
		switch {
		case err != nil:
			d.fail(fmt.Sprintf("the team database's schema: %v", err), "check the database user's rights (SELECT on sepad_schema)")
		case v > team.SchemaVersion:
			d.fail(fmt.Sprintf("the team database's schema is version %d, newer than this sepad's %d: this machine does not ship", v, team.SchemaVersion), "upgrade sepad")
		case v < team.SchemaVersion:
			d.warn(fmt.Sprintf("the team database's schema is version %d, this sepad's is %d", v, team.SchemaVersion), "run `sepad team init` (the daemon also upgrades it when it connects)")
		default:
			d.ok("the team database is reachable, schema version %d", v)
		}
	}
	st, err := team.ReadStatus(home)
	if err != nil {
		d.warn("the daemon has not shipped to the team database from this home yet", "start the daemon (`sepad run`) with team.postgres set")
		return
	}
	switch {
	case st.Refused:
		d.fail("the daemon stopped shipping: "+st.LastError, "upgrade sepad")
	case st.LastError != "" && st.Pending > 0:
		d.warn(fmt.Sprintf("team shipping: %s (oldest %s); last error: %s", render.Plural(int(st.Pending), "execution waits", "executions wait"),
			(time.Duration(st.LagSeconds)*time.Second).String(), st.LastError), "see `sepad team status`; they are shipped when the database is back")
	case st.LagSeconds > 3600:
		d.warn(fmt.Sprintf("team shipping lags: the oldest of %d pending executions waits since %s", st.Pending,
			(time.Duration(st.LagSeconds)*time.Second).String()), "see `sepad team status`")
	default:
		d.ok("team shipping: %d shipped, %d pending", st.Shipped, st.Pending)
	}
}
