"""What graders run untrusted input through: the assertion sandbox and RE2 regexes."""
