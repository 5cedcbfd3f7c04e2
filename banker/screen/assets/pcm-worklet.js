// The phone's microphone as 16 kHz mono int16 frames of 30 ms (480 samples), made in the
// audio thread: the context's rate (often 48 kHz) is brought down by averaging each output
// sample's span of input samples (a box filter: enough against aliasing for speech recognition).
class PcmDown extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / 16000;
    this.pos = 0; this.acc = 0; this.n = 0;
    this.out = new Int16Array(480); this.fill = 0;
  }
  process(inputs) {
    const ch = inputs[0] && inputs[0][0];
    if (!ch) return true;
    for (let i = 0; i < ch.length; i++) {
      this.acc += ch[i]; this.n++; this.pos += 1;
      if (this.pos >= this.step) {
        this.pos -= this.step;
        const v = Math.max(-1, Math.min(1, this.acc / this.n));
        this.out[this.fill++] = v < 0 ? v * 32768 : v * 32767;
        this.acc = 0; this.n = 0;
        if (this.fill === this.out.length) {
          this.port.postMessage(this.out.buffer, [this.out.buffer]);
          this.out = new Int16Array(480); this.fill = 0;
        }
      }
    }
    return true;
  }
}
registerProcessor("pcm-down", PcmDown);
