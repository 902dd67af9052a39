# Does not compile.
# score: 0
# text: does not compile
s/^int main(int argc, char \*\*argv)$/int main(int argc, char **argv) syntax error/
