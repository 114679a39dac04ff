package config

import "lectern.dev/lectern/render/icons"

// IconLibrary returns the icon library of docs.json's icons.library:
// Font Awesome (Mintlify's default) when it is missing, is not one of the
// libraries Mintlify accepts (ok false, with the value as written), or c
// is nil.
func (c *Config) IconLibrary() (lib icons.Library, value string, ok bool) {
	if c == nil {
		return icons.FontAwesome, "", true
	}
	m, _ := c.Raw["icons"].(map[string]any)
	value = Str(m["library"])
	lib, ok = icons.ParseLibrary(value)
	return lib, value, ok
}

// Icons returns the site's icon library (IconLibrary without the checks).
func (c *Config) Icons() icons.Library {
	lib, _, _ := c.IconLibrary()
	return lib
}
