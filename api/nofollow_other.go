//go:build !unix

package api

// oNoFollow: no such flag; LoadSecret still checks the file is regular.
const oNoFollow = 0
