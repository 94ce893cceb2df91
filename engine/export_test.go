package engine

// HostBudget is the budget rule, for tests that apply wasm32's bound
// natively.
var HostBudget = hostBudget
