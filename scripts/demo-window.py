"""A small window with known text, so a virtual display has something to capture."""

import tkinter as tk

root = tk.Tk(className="Noru-demo")
root.title("notes.md - noru-demo - Editor")
root.geometry("900x420+120+100")
root.configure(background="#ffffff")
text = (
    "Welcome to Noru on a virtual display.\n\n"
    "This window is here so captures have something to show.\n"
    "Try: noru capture --note 'first capture'\n"
    "then ask your agent: what is on my screen?"
)
tk.Label(
    root,
    text=text,
    font=("DejaVu Sans", 18),
    justify="left",
    background="#ffffff",
    foreground="#202020",
).pack(padx=30, pady=30, anchor="w")
root.mainloop()
