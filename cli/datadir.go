package cli

import (
	"errors"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Modes of Lectern's local data: the database, the blob folder and the
// secret key file are the owner's alone.
const (
	privateDir  fs.FileMode = 0o700
	privateFile fs.FileMode = 0o600
)

// dataFiles are the files Lectern keeps directly in the data folder.
var dataFiles = []string{"lectern.db", "lectern.db-wal", "lectern.db-shm", "secret.key", demoKeyFile}

// privatePaths returns what must be private: the folders whose whole
// tree is Lectern's (a blob folder), and single folders and files (the
// data folder itself and Lectern's files in it, an sqlite://PATH
// database's files, whose folder may hold other files). Other files a
// data folder may hold are left alone: the data folder is made 0700,
// which closes them to others anyway.
func (s *storageFlags) privatePaths() (trees, single []string) {
	if s.databaseURL == "" || s.blobURL == "" || s.embeddedKey() {
		single = append(single, s.dataDir)
		for _, f := range dataFiles {
			single = append(single, filepath.Join(s.dataDir, f))
		}
		if s.blobURL == "" {
			trees = append(trees, filepath.Join(s.dataDir, "blobs"))
		}
	}
	if strings.HasPrefix(s.blobURL, "file://") {
		if u, err := url.Parse(s.blobURL); err == nil && u.Path != "" {
			trees = append(trees, filepath.FromSlash(u.Path))
		}
	}
	if path, ok := strings.CutPrefix(s.databaseURL, "sqlite://"); ok && path != "" {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			single = append(single, path+suffix)
		}
	}
	return trees, single
}

// secureData creates the data folder (0700) when it is used, creates the
// SQLite file (0600) before SQLite does so that its -wal and -shm files
// take the same mode, and takes group and other permissions away from
// what still has some: the data folder, Lectern's files in it, and every
// folder and file of a local blob folder whose root others could still
// enter. One log line says what was tightened.
func (s *storageFlags) secureData(log *slog.Logger) error {
	if OwnProcess {
		privateUmask()
	}
	trees, single := s.privatePaths()
	if len(single) > 0 && single[0] == s.dataDir {
		if err := os.MkdirAll(s.dataDir, privateDir); err != nil {
			return err
		}
	}
	if db := s.sqlitePath(); db != "" {
		if err := os.MkdirAll(filepath.Dir(db), privateDir); err != nil {
			return err
		}
		f, err := os.OpenFile(db, os.O_RDONLY|os.O_CREATE, privateFile)
		if err != nil {
			return err
		}
		f.Close()
	}
	var nDirs, nFiles int
	tighten := func(path string, mode fs.FileMode) {
		if mode&fs.ModeSymlink != 0 || mode.Perm()&0o077 == 0 {
			return
		}
		if err := os.Chmod(path, mode.Perm()&^0o077); err != nil {
			log.Warn("cannot tighten the permissions of a data file", "path", path, "err", err)
			return
		}
		if mode.IsDir() {
			nDirs++
		} else {
			nFiles++
		}
	}
	for _, p := range single {
		if info, err := os.Lstat(p); err == nil {
			tighten(p, info.Mode())
		} else if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("cannot inspect a data file", "path", p, "err", err)
		}
	}
	for _, root := range trees {
		// A private root closes its tree to others: only a tree whose root
		// is still loose (written by an earlier release) is walked, so
		// that a start does not visit every blob of every deployment.
		if info, err := os.Lstat(root); err != nil || info.Mode().Perm()&0o077 == 0 {
			continue
		}
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // vanished, or unreadable: nothing to tighten
			}
			if info, err := d.Info(); err == nil {
				tighten(path, info.Mode())
			}
			return nil
		})
	}
	if nDirs+nFiles > 0 {
		where := trees
		if len(single) > 0 {
			where = append([]string{single[0]}, trees...)
		}
		log.Warn("tightened the permissions of data that others could read: group and others lost their access",
			"folders", nDirs, "files", nFiles, "under", strings.Join(where, ", "))
	}
	return nil
}

// sqlitePath returns the SQLite database file, or "" on PostgreSQL.
func (s *storageFlags) sqlitePath() string {
	if s.databaseURL == "" {
		return filepath.Join(s.dataDir, "lectern.db")
	}
	if path, ok := strings.CutPrefix(s.databaseURL, "sqlite://"); ok {
		return path
	}
	return ""
}

// tightenFolder makes a folder its owner's alone (0700), which closes
// everything under it to others, with a log line when it was looser.
func tightenFolder(dir string, log *slog.Logger) {
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	if err := os.Chmod(dir, fi.Mode().Perm()&privateDir); err != nil {
		log.Warn("cannot tighten the permissions of a folder", "path", dir, "err", err)
		return
	}
	log.Warn("tightened the permissions of a folder that others could read: it is now 0700", "path", dir, "was", fi.Mode().Perm().String())
}
