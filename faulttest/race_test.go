//go:build race

package faulttest

func init() { raceEnabled = true }
