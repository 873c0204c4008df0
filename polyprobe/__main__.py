from polyprobe.cli import run

run()
