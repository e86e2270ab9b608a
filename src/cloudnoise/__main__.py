from cloudnoise.cli import main

main()
