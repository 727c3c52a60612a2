"""What a screen is, for both the command rules and the providers that plan over it: the reduced
view tree, Android package names, and the vocabulary of actions a plan may use. Below both
`commands` and `providers`: it imports neither."""
