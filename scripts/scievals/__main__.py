from scievals.cli import main

raise SystemExit(main())
