package main

import (
	"context"
	"io"
)

// openAPI starts the daemon's API listeners. Replaced by the API server.
func openAPI(ctx context.Context, d *daemon, f daemonFlags) (io.Closer, error) {
	return nopCloser{}, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
