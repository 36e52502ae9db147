"""Reading other tools' MLIR text: `text` parses it with the dialects of
gpuc/dialects/foreign and upgrades MLIR's older spellings; `host_text` keeps
a mixed module's device part when its host part does not parse.
"""
