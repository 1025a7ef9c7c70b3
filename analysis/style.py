"""The greyscale style every boardlab figure shares: series differ by grey level, line style, marker and hatch."""

GREYS = ["#111111", "#777777", "#bbbbbb", "#444444", "#999999", "#dddddd", "#222222", "#666666"]
LINESTYLES = ["-", "--", ":", "-.", (0, (5, 1)), (0, (1, 1)), (0, (3, 1, 1, 1)), (0, (5, 5))]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
HATCHES = ["", "//", "..", "xx", "\\\\", "--", "++", "oo"]
