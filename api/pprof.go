package api

import (
	"net/http"
	"net/http/pprof"
)

// DebugPrefix is where the socket serves the Go runtime's profiles
// (net/http/pprof: heap, allocs, goroutine, profile, trace...), for
// finding what holds the daemon's memory or CPU
// (`curl --unix-socket $SEPA_HOME/sepad.sock http://sepad/debug/pprof/heap`).
// Only the unix socket serves it, never the TCP address: a profile shows
// the daemon's internals (paths, command line) and a CPU profile or trace
// costs CPU while it runs, so only the daemon's own user may ask.
const DebugPrefix = "/debug/pprof/"

// withDebug serves DebugPrefix from net/http/pprof and everything else
// from h. net/http/pprof also registers itself on http.DefaultServeMux,
// which sepad never serves.
func withDebug(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(DebugPrefix, pprof.Index) // the index and every named profile (heap, allocs...)
	mux.HandleFunc(DebugPrefix+"cmdline", pprof.Cmdline)
	mux.HandleFunc(DebugPrefix+"profile", pprof.Profile)
	mux.HandleFunc(DebugPrefix+"symbol", pprof.Symbol)
	mux.HandleFunc(DebugPrefix+"trace", pprof.Trace)
	mux.Handle("/", h)
	return mux
}
