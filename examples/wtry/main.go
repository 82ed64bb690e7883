package main

import (
	"fmt"
	"os"
	"time"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

func main() {
	t0 := time.Now()
	load := func(seed uint64) (*scenario.Scenario, error) { return scenario.LoadFiles(os.Args[2:]) }
	sc, err := load(1)
	if err != nil {
		panic(err)
	}
	t1 := time.Now()
	jobs := whatif.Jobs(sc, os.Args[1])
	a, err := whatif.StartTimes(func(uint64) (*scenario.Scenario, error) { return sc, nil }, jobs, whatif.StartOptions{})
	if err != nil {
		panic(err)
	}
	t2 := time.Now()
	for _, j := range a.Jobs {
		fmt.Printf("%+v\n", j.First)
	}
	fmt.Println(a.Stopped, "load", t1.Sub(t0), "run", t2.Sub(t1), len(sc.Warnings))
}
