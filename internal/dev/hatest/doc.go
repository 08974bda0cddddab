// Package hatest holds the failover test of roost's reference HA
// deployment (deploy/local-ha): paid load from two roost replicas on a
// Patroni cluster whose primary is killed with SIGKILL. It runs only with
// ROOST_TEST_HA=1 against a topology that deploy/local-ha up started
// (.ci/run's HA phase does both); it has no code outside its tests.
package hatest
