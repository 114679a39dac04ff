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

// privateRoots returns the local folders whose whole content is Lectern's
// data (the data folder when anything lives in it, a file:// blob folder)
// and the database files that lie elsewhere (sqlite://PATH, whose folder
// may hold other files).
func (s *storageFlags) privateRoots() (dirs, files []string) {
	blobs := s.blobURL
	if s.databaseURL == "" || blobs == "" || s.embeddedKey() {
		dirs = append(dirs, s.dataDir)
	}
	if strings.HasPrefix(blobs, "file://") {
		if u, err := url.Parse(blobs); err == nil && u.Path != "" {
			dirs = append(dirs, filepath.FromSlash(u.Path))
		}
	}
	if path, ok := strings.CutPrefix(s.databaseURL, "sqlite://"); ok && path != "" {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			files = append(files, path+suffix)
		}
	}
	return dirs, files
}

// secureData creates the data folder (0700) when it is used, creates the
// SQLite file (0600) before SQLite does so that its -wal and -shm files
// take the same mode, and tightens what is looser: folders to 0700 and
// files to 0600, all through the data folder and a file:// blob folder.
// One log line says what was tightened.
func (s *storageFlags) secureData(log *slog.Logger) error {
	if OwnProcess {
		privateUmask()
	}
	dirs, files := s.privateRoots()
	for _, d := range dirs {
		if err := os.MkdirAll(d, privateDir); err != nil {
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
		want := mode.Perm() & (privateDir &^ 0o100)
		if mode.IsDir() {
			want = mode.Perm() & privateDir
		}
		if mode.Perm() == want {
			return
		}
		if err := os.Chmod(path, want); err != nil {
			log.Warn("cannot tighten the permissions of a data file", "path", path, "err", err)
			return
		}
		if mode.IsDir() {
			nDirs++
		} else {
			nFiles++
		}
	}
	for _, root := range dirs {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // vanished, or unreadable: nothing to tighten
			}
			if d.Type()&fs.ModeSymlink != 0 {
				return nil
			}
			if info, err := d.Info(); err == nil {
				tighten(path, info.Mode())
			}
			return nil
		})
	}
	for _, f := range files {
		if info, err := os.Lstat(f); err == nil && info.Mode().IsRegular() {
			tighten(f, info.Mode())
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Warn("cannot inspect a data file", "path", f, "err", err)
		}
	}
	if nDirs+nFiles > 0 {
		log.Warn("tightened the permissions of data that others could read: folders are now 0700 and files 0600",
			"folders", nDirs, "files", nFiles, "under", strings.Join(append(dirs, files...), ", "))
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
