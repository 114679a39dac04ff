package main

import "lectern.dev/lectern/render"

func setCacheDir(o *render.Options, dir string) { o.CacheDir = dir }
