package postgres

// OrderFor is how long a Store keeps the organizations' order
// (claimorder.go), for the tests of postgres_test.
const OrderFor = orderFor
