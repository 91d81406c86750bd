package mutation

import "fmt"

// Plugin prompts (docs/claude-code.md, "Plugin skills"): a Claude Code
// plugin's skills, commands and agents are graded like any prompt, but
// sepad never writes them (prompt.PluginOf tells them). The plugin manager
// owns those files and an update replaces them; a directory marketplace's
// source folder or a --plugin-dir is someone's plugin checkout. A version
// that would be rolled back gets the decision and a notice that advises
// pinning the plugin's version or reporting upstream; a rollback or a
// proposal by hand is refused.

// pluginWords is the refusal and notice text for a plugin's prompt file.
func pluginWords(plugin, skill, path string) string {
	return fmt.Sprintf("%s is a file of the Claude Code plugin %s, which sepad never writes (the plugin manager owns it and an update replaces it): "+
		"pin the plugin's version (install the version that graded well, and keep it: `claude plugin install %s@MARKETPLACE`), "+
		"or report the regression upstream with `sepad explain` and `sepad diff %s`; `sepad pin %s` stops these decisions",
		path, plugin, plugin, skill, skill)
}
