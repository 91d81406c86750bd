// Package archtest holds no code: its test checks that every package
// imports only what docs/architecture.md says it may, and that the table
// lists nothing a package does not use, so the document and the code
// cannot drift apart.
package archtest
