package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// envName returns the environment variable of a flag: LECTERN_ and the
// flag's name in upper snake case.
func envName(flag string) string {
	return "LECTERN_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// resolveFlags fills every flag the command line did not set, first from
// its environment variable, then from the config file named by --config
// (a YAML mapping of flag names to values). Unknown keys in the file and
// invalid values are errors that name the key and where it came from.
func resolveFlags(fs *pflag.FlagSet, getenv func(string) string) error {
	var file map[string]any
	if cf := fs.Lookup("config"); cf != nil {
		path := cf.Value.String()
		if !cf.Changed {
			if v := getenv(envName("config")); v != "" {
				path = v
			}
		}
		if path != "" {
			data, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("config file: %w", err)
			}
			if err := yaml.Unmarshal(data, &file); err != nil {
				return fmt.Errorf("config file %s is not valid YAML: %w", path, err)
			}
			for k := range file {
				if f := fs.Lookup(k); f == nil || f.Hidden || k == "config" {
					return fmt.Errorf("config file %s: unknown setting %q", path, k)
				}
			}
		}
	}
	// The environment comes before the file: envFlags marks what it sets
	// as changed, and the file sets only what is still unchanged.
	if err := envFlags(fs, getenv); err != nil {
		return err
	}
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed {
			return
		}
		if v, ok := file[f.Name]; ok {
			if e := fs.Set(f.Name, fmt.Sprint(v)); e != nil {
				err = fmt.Errorf("config file setting %q: %w", f.Name, e)
			}
		}
	})
	return err
}

// envFlags sets every flag the command line did not set from its
// environment variable (LECTERN_ and the flag name in upper snake case).
func envFlags(fs *pflag.FlagSet, getenv func(string) string) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed {
			return
		}
		if v := getenv(envName(f.Name)); v != "" {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("environment variable %s: %w", envName(f.Name), e)
			}
		}
	})
	return err
}
