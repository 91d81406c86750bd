# Sourced by the scripts that run the real daemon on generated load
# (soak.sh, catchup.sh). daemon_env DIR builds sepad and spoolgen into DIR
# and gives the daemon a home of its own (DIR/home, 0700), a HOME of its
# own and no user configuration, so a run never reads or writes the
# caller's.
daemon_env() {
  go build -o "$1/sepad" ./cmd/sepad
  go build -o "$1/spoolgen" ./internal/sessiongen/spoolgen
  mkdir -p -m 700 "$1/home" "$1/user"
  export SEPA_CONFIG= XDG_CONFIG_HOME="$1/none" HOME="$1/user"
}
