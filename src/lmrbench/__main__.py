from lmrbench.cli import app

app(prog_name="lmrbench")
