// Package promptfile is the write side of Claude Code's prompt files: a
// version's identity (Hash), the directories sepad may write in (the
// projects `sepad install` recorded, a directory `sepad trust` accepts),
// and a file read, replaced atomically or rolled back inside them, never
// following a link out of its root. Package prompt is the read side: which
// file a name resolves to, and what kind of prompt a file is.
package promptfile
